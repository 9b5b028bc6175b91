// Which stored object serves what, for a track's row (migration 020): the clip master for clips,
// previews and analysis, the full download for POST /download-track without a duration. A track
// whose original serves itself (an MP3 ingested before masters of other formats, or any 44.1 kHz
// stereo CBR 128 kbps MP3) has NULL there, and its original is used: the objects of earlier
// ingests keep working unchanged.
import type { CatalogStorage } from './storage/catalog-storage.ts';

export interface TrackFiles {
  audio_sha256: string;
  audio_bytes: number;
  audio_format: string;
  clip_master_sha256: string | null;
  download_sha256: string | null;
  download_bytes: number | null;
}

export function originalPath(storage: CatalogStorage, track: Pick<TrackFiles, 'audio_sha256' | 'audio_format'>): Promise<string> {
  return storage.localPath(track.audio_sha256, 'audio', track.audio_format);
}

/** The local file of the track's clip master. */
export function clipMasterPath(storage: CatalogStorage, track: Pick<TrackFiles, 'audio_sha256' | 'audio_format' | 'clip_master_sha256'>): Promise<string> {
  return track.clip_master_sha256 ? storage.localPath(track.clip_master_sha256, 'master') : originalPath(storage, track);
}

/** The local file of the track's full download, an MP3, and its size. */
export async function fullDownload(storage: CatalogStorage, track: TrackFiles): Promise<{ path: string; size: number }> {
  if (track.download_sha256 && track.download_bytes !== null) return { path: await storage.localPath(track.download_sha256, 'download'), size: Number(track.download_bytes) };
  return { path: await originalPath(storage, track), size: Number(track.audio_bytes) };
}
