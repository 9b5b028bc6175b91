// A standard MIDI file's clock: its tempo map (every track's tempo changes) turns ticks into
// seconds. Shared by the scores and the charts whose beats we judge on.
import type { MidiData, MidiEvent } from 'midi-file';

/** A file's MIDI tempo when it sets none: 120 BPM, as the MIDI standard has it. */
const DEFAULT_MICROSECONDS_PER_BEAT = 500_000;

export interface TempoMap {
  ticksPerBeat: number;
  /** Tempo changes in tick order, the first at tick 0, each with the seconds at which it starts. */
  changes: { tick: number; microsecondsPerBeat: number; seconds: number }[];
}

/** Every track's events, each with its tick from the file's start (track by track, not merged). */
export function* timedEvents(midi: MidiData): Generator<{ tick: number; event: MidiEvent }> {
  for (const track of midi.tracks) {
    let tick = 0;
    for (const event of track) {
      tick += event.deltaTime;
      yield { tick, event };
    }
  }
}

/** The file's tempo map; undefined for a file timed in SMPTE frames (it has no beats). */
export function tempoMap(midi: MidiData): TempoMap | undefined {
  const ticksPerBeat = midi.header.ticksPerBeat;
  if (ticksPerBeat === undefined) return undefined;
  const raw: { tick: number; microsecondsPerBeat: number }[] = [];
  for (const { tick, event } of timedEvents(midi)) if (event.type === 'setTempo') raw.push({ tick, microsecondsPerBeat: event.microsecondsPerBeat });
  raw.sort((a, b) => a.tick - b.tick);
  if (raw.length === 0 || raw[0].tick > 0) raw.unshift({ tick: 0, microsecondsPerBeat: DEFAULT_MICROSECONDS_PER_BEAT });
  const changes: TempoMap['changes'] = [];
  let seconds = 0;
  for (let i = 0; i < raw.length; i++) {
    if (i > 0) seconds += ((raw[i].tick - raw[i - 1].tick) / ticksPerBeat) * (raw[i - 1].microsecondsPerBeat / 1e6);
    changes.push({ ...raw[i], seconds });
  }
  return { ticksPerBeat, changes };
}

/** Seconds from the file's start at `tick`. */
export function secondsAtTick({ ticksPerBeat, changes }: TempoMap, tick: number): number {
  let change = 0;
  while (change + 1 < changes.length && changes[change + 1].tick <= tick) change++;
  const { tick: from, microsecondsPerBeat, seconds } = changes[change];
  return seconds + ((tick - from) / ticksPerBeat) * (microsecondsPerBeat / 1e6);
}
