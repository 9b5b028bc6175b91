// Rock and metal songs whose beats are known: Frets on Fire's songs (Debian's
// fretsonfire-songs-muldjord and fretsonfire-songs-sectoid), each a folder of stems (song.ogg,
// guitar.ogg, sometimes rhythm.ogg) and the game's chart, notes.mid, whose tempo map gives every
// beat. The mix is the stems summed; the chart's grid is laid on the audio by the shift (within
// half a beat) whose beats carry the strongest onsets, as not every chart starts with its audio.
import fs from 'node:fs';
import path from 'node:path';
import { parseMidi } from 'midi-file';
import type { Analysis } from '../../engine/analysis/analyse.ts';
import { frameSeconds } from '../../engine/analysis/frames.ts';
import type { Pcm } from '../../engine/mp3/decode.ts';
import { ffmpegPcm } from './soundtracks.ts';
import { type TempoMap, secondsAtTick, tempoMap } from './midi-time.ts';

const SONG_ROOTS = ['/usr/share/games/fretsonfire/data/songs/muldjord', '/usr/share/games/fretsonfire/data/songs/sectoid'];
const STEMS = ['song.ogg', 'guitar.ogg', 'rhythm.ogg'];
const CHART = 'notes.mid';
/** The longest song's PCM with room to spare: 44.1 kHz stereo float for 10 minutes. */
const MAX_PCM_BYTES = 2 * 4 * 44100 * 600;
/** The shifts tried when laying the chart's grid on the audio, this far apart (seconds). */
const SHIFT_STEP_SECONDS = 0.002;

/** The installed chart songs' folders, sorted: those whose chart is timed in beats (not SMPTE frames). */
export function chartSongs(): string[] {
  return SONG_ROOTS.filter((root) => fs.existsSync(root))
    .flatMap((root) => fs.readdirSync(root).map((name) => path.join(root, name)))
    .filter((dir) => fs.existsSync(path.join(dir, CHART)) && fs.existsSync(path.join(dir, STEMS[0])) && chartTempo(dir) !== undefined)
    .sort();
}

/** The song's stems summed (ffmpeg's amix, unnormalised) as 44.1 kHz stereo float PCM, or undefined if ffmpeg cannot read them. */
export function decodeChartSong(dir: string): Pcm | undefined {
  const stems = STEMS.map((stem) => path.join(dir, stem)).filter((file) => fs.existsSync(file));
  return ffmpegPcm([...stems.flatMap((file) => ['-i', file]), '-filter_complex', `amix=inputs=${stems.length}:normalize=0`], MAX_PCM_BYTES);
}

/** The chart's tempo map; undefined for a chart timed in SMPTE frames (it has no beats). */
const chartTempo = (dir: string): TempoMap | undefined => tempoMap(parseMidi(fs.readFileSync(path.join(dir, CHART))));

/** The chart's beats (its quarter notes) from its start up to `untilSeconds`, by its tempo map; none for a chart timed in SMPTE frames. */
function chartBeats(dir: string, untilSeconds: number): number[] {
  const tempo = chartTempo(dir);
  const beats: number[] = [];
  if (!tempo) return beats;
  for (let tick = 0, seconds = 0; (seconds = secondsAtTick(tempo, tick)) <= untilSeconds; tick += tempo.ticksPerBeat) beats.push(seconds);
  return beats;
}

/** The onset strength at `seconds`, between the two frames around it (linearly). */
function onsetBetweenFrames({ onset, frameRate }: Analysis, seconds: number): number {
  const at = (seconds - frameSeconds(0, frameRate)) * frameRate;
  const frame = Math.floor(at);
  if (frame < 0 || frame + 1 >= onset.length) return 0;
  return onset[frame] + (at - frame) * (onset[frame + 1] - onset[frame]);
}

/**
 * The chart's beats laid on the audio: shifted (within half a beat) to where they carry the most
 * onset, read between frames at each beat's own time. Counted with a few frames' tolerance
 * (onsetSupport), the onset summed over the beats was flat across ~25 ms and its first maximum put
 * the grid up to 18 ms early (our beats' median offset from it +4 to +15 ms); read at the beat,
 * the four Muldjord charts land within 2.1 ms of where the game plays them (no delay in song.ini).
 */
export function chartBeatsOnAudio(dir: string, analysis: Analysis): number[] {
  const beats = chartBeats(dir, analysis.durationSeconds + 1);
  const beatSeconds = beats.length > 1 ? beats[1] - beats[0] : 0.5;
  const onsetAt = (shift: number) => beats.reduce((sum, t) => sum + onsetBetweenFrames(analysis, t + shift), 0);
  let best = 0;
  let bestOnset = -Infinity;
  for (let shift = -beatSeconds / 2; shift < beatSeconds / 2; shift += SHIFT_STEP_SECONDS) {
    const onset = onsetAt(shift);
    if (onset > bestOnset) {
      bestOnset = onset;
      best = shift;
    }
  }
  return beats.map((t) => t + best).filter((t) => t >= 0 && t <= analysis.durationSeconds);
}
