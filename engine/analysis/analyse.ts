// The whole analysis of a track, from PCM to a compact, versioned, serialisable value.
import type { Pcm } from '../mp3/decode.ts';
import { spectrogram } from './spectrogram.ts';
import { frameSeconds } from './frames.ts';
import { ANALYSIS_VERSION } from './version.ts';
import { onsetOfFlux, spectralFlux } from './onset.ts';
import { tempoPeriodFrames } from './tempo.ts';
import { localPeriods } from './tempo-track.ts';
import { beatFrames, tempoFromBeatsBpm } from './beats.ts';
import { onOneGrid } from './beat-phase.ts';
import { onLongInterval } from './long-short.ts';
import { chromaDistance, downbeatIndices } from './bars.ts';
import { sectionStartBars } from './sections.ts';
import { musicalKey } from './key.ts';
import { pitchClassProfile } from './chroma.ts';
import { energyLevel, loudnessDbfs, onsetRatePerSecond, type EnergyLevel } from './energy.ts';
import { peakBeat } from './peak.ts';
import { timbreShape } from './timbre.ts';
import { barFeatures } from './bar-features.ts';
import { integratedLoudnessLufs } from './loudness.ts';
import { waveformPeaks } from './waveform.ts';


export interface Analysis {
  version: number;
  durationSeconds: number;
  /** Frames per second of the envelopes below. */
  frameRate: number;
  tempoBpm: number;
  /** The beat tracker's beats (beats.ts), seconds. */
  beatTimesSeconds: Float32Array;
  /** Bar starts (downbeats, on beatTimesSeconds), seconds. */
  barTimesSeconds: Float32Array;
  /** Section starts (a subset of bar starts), seconds. */
  sectionTimesSeconds: Float32Array;
  key: string;
  energyLevel: EnergyLevel;
  loudnessDb: number;
  /** The dominant energy peak (climax/drop), on a beat, seconds. */
  peakSeconds: number;
  /** RMS per frame (linear). */
  rms: Float32Array;
  /** Onset strength per frame. */
  onset: Float32Array;
  /** Average spectral shape (timbre.ts); absent in analyses stored before it existed. */
  timbre?: number[];
  /** Per bar (barTimesSeconds), its timbre and harmony (bar-features.ts): bars x BAR_FEATURES. */
  barFeatures: Float32Array;
  /**
   * The beats on one grid through the piece (beat-phase.ts), seconds: where the tracker slid half a
   * beat into a passage's louder off-beats, these stay on the beat, and a piece tracked on the
   * off-beat throughout is moved onto the beat its chords change on. With the bars, their features
   * and the sections on them (gridBar...), all four empty when the tracker's beats stand as they
   * are. Edits are planned on this grid when there is one (plan/grid.ts).
   */
  gridBeatTimesSeconds: Float32Array;
  gridBarTimesSeconds: Float32Array;
  gridBarFeatures: Float32Array;
  gridSectionTimesSeconds: Float32Array;
  /** Integrated loudness (EBU R128, loudness.ts) of the full-rate signal, to 0.1 LU; null for silence. */
  loudnessLufs: number | null;
  /** Peak |sample| of the full-rate signal per 1/WAVEFORM_POINTS_PER_SECOND s (waveform.ts), 0..1. */
  waveformPeaks: Float32Array;
}

/** Mono at half the source rate (22.05 kHz for 44.1 kHz): plenty for rhythm and energy, half the work. */
function analysisSignal(pcm: Pcm): { mono: Float32Array; sampleRate: number } {
  const channels = pcm.channels;
  const mono = new Float32Array(Math.floor(channels[0].length / 2));
  const scale = 1 / (2 * channels.length);
  for (const channel of channels) addPairs(channel, mono, scale);
  return { mono, sampleRate: pcm.sampleRate / 2 };
}

/** Adds each pair of `channel`'s samples, times `scale`, to `mono`: a loop of its own, a third faster than inline in analysisSignal's. */
function addPairs(channel: Float32Array, mono: Float32Array, scale: number): void {
  for (let i = 0, j = 0; i < mono.length; i++, j += 2) mono[i] += (channel[j] + channel[j + 1]) * scale;
}

type Spectrogram = ReturnType<typeof spectrogram>;

/** Bars on the given beats (frames): their downbeats (frames), the bars sections start at, and each bar's features. */
function barsOn(beats: Int32Array, spec: Spectrogram): { barFrames: Int32Array; sections: ArrayLike<number>; features: Float32Array } {
  const barFrames = Int32Array.from(downbeatIndices(beats, spec), (i) => beats[i]);
  return {
    barFrames,
    sections: sectionStartBars(barFrames, spec.logBands, spec.bands, spec.frames),
    features: barFeatures(barFrames, spec.logBands, spec.bands, spec.chromaFrames, spec.frames),
  };
}

/** A piece whose tracked beats are on one grid already. */
const NO_GRID = { beats: new Int32Array(0), barFrames: new Int32Array(0), sections: new Int32Array(0), features: new Float32Array(0) };

/** The rhythm of a spectrogram: onsets, beat period (frames), beats (frames: tracked, then moved to begin a long-short beat's long interval), and the peak beat (index into beats, -1 without). */
function rhythmOf(spec: Spectrogram) {
  const onset = onsetOfFlux(spectralFlux(spec.logBands, spec.bands, spec.frames));
  const period = tempoPeriodFrames(onset, spec.frameRate);
  const beats = onLongInterval(beatFrames(onset, period, localPeriods(onset, spec.frameRate, period)), onset);
  return { onset, period, beats, peak: peakBeat(beats, spec.rms, spec.frameRate) };
}

/** The peak beat's time (rhythmOf), seconds; the middle of the track when it has no beats. */
function peakSecondsOf(beats: Int32Array, peak: number, frameRate: number, durationSeconds: number): number {
  return peak >= 0 ? frameSeconds(beats[peak], frameRate) : durationSeconds / 2;
}

export function analysePcm(pcm: Pcm): Analysis {
  const { mono, sampleRate } = analysisSignal(pcm);
  const durationSeconds = pcm.channels[0].length / pcm.sampleRate;
  const spec = spectrogram(mono, sampleRate);
  const { onset, period, beats, peak } = rhythmOf(spec);
  const frameToSeconds = (f: number) => frameSeconds(f, spec.frameRate);
  const beatTimesSeconds = Float32Array.from(beats, frameToSeconds);
  const tempoBpm = tempoFromBeatsBpm(beatTimesSeconds, (60 * spec.frameRate) / period);
  const bars = barsOn(beats, spec);
  const oneGrid = onOneGrid(beats, onset, period, (frame) => chromaDistance(spec.chromaFrames, frame, frame + Math.round(period / 2)));
  // The one grid begins the long interval too: its passages moved back can show a long-short beat that the slides blurred.
  const gridBeats = oneGrid === beats ? beats : onLongInterval(oneGrid, onset);
  const grid = gridBeats === beats ? NO_GRID : { beats: gridBeats, ...barsOn(gridBeats, spec) };
  const loudnessDb = loudnessDbfs(spec.rms);
  const loudnessLufs = integratedLoudnessLufs(pcm.channels, pcm.sampleRate);
  return {
    version: ANALYSIS_VERSION,
    durationSeconds,
    frameRate: spec.frameRate,
    tempoBpm: Math.round(tempoBpm * 100) / 100,
    beatTimesSeconds,
    barTimesSeconds: Float32Array.from(bars.barFrames, frameToSeconds),
    sectionTimesSeconds: Float32Array.from(bars.sections, (b) => frameToSeconds(bars.barFrames[b])),
    key: musicalKey(pitchClassProfile(mono, sampleRate)),
    energyLevel: energyLevel(loudnessDb, onsetRatePerSecond(onset, spec.frameRate), tempoBpm),
    loudnessDb: Math.round(loudnessDb * 10) / 10,
    peakSeconds: peakSecondsOf(beats, peak, spec.frameRate, durationSeconds),
    rms: spec.rms,
    onset,
    timbre: timbreShape(spec.logBands, spec.bands, spec.frames),
    barFeatures: bars.features,
    gridBeatTimesSeconds: Float32Array.from(grid.beats, frameToSeconds),
    gridBarTimesSeconds: Float32Array.from(grid.barFrames, frameToSeconds),
    gridBarFeatures: grid.features,
    gridSectionTimesSeconds: Float32Array.from(grid.sections, (b) => frameToSeconds(grid.barFrames[b])),
    loudnessLufs: Number.isFinite(loudnessLufs) ? Math.round(loudnessLufs * 10) / 10 : null,
    waveformPeaks: waveformPeaks(pcm.channels, pcm.sampleRate),
  };
}
