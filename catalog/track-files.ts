// Which stored file serves what, for a track's row (migration 019): the clip master for clips,
// previews and analysis, the full download for POST /download-track without a duration. A track
// whose original serves itself (an MP3 ingested before masters of other formats, or any 44.1 kHz
// stereo CBR 128 kbps MP3) has NULL there, and its original is used: the store's layout of
// earlier ingests keeps working unchanged.
import { storePath } from './store.ts';

export interface TrackFiles {
  audio_sha256: string;
  audio_bytes: number;
  audio_format: string;
  clip_master_sha256: string | null;
  download_sha256: string | null;
  download_bytes: number | null;
}

export function originalPath(storeDir: string, track: Pick<TrackFiles, 'audio_sha256' | 'audio_format'>): string {
  return storePath(storeDir, track.audio_sha256, 'audio', track.audio_format);
}

export function clipMasterPath(storeDir: string, track: Pick<TrackFiles, 'audio_sha256' | 'audio_format' | 'clip_master_sha256'>): string {
  return track.clip_master_sha256 ? storePath(storeDir, track.clip_master_sha256, 'master') : originalPath(storeDir, track);
}

export function fullDownload(storeDir: string, track: TrackFiles): { path: string; size: number } {
  if (track.download_sha256 && track.download_bytes !== null) return { path: storePath(storeDir, track.download_sha256, 'download'), size: Number(track.download_bytes) };
  return { path: originalPath(storeDir, track), size: Number(track.audio_bytes) };
}
