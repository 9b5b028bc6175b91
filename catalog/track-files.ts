// Which stored object serves what, for a track's row (migration 020): the clip master for clips,
// previews and analysis, the full download for POST /download-track without a duration. A track
// whose original serves itself (an MP3 ingested before masters of other formats, or any 44.1 kHz
// stereo CBR 128 kbps MP3) has NULL there, and its original is used: the objects of earlier
// ingests keep working unchanged.
import fs from 'node:fs';
import { objectName, StoredObjectMissing, type CatalogStorage, type StoredKind } from './storage/catalog-storage.ts';

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

/** A stored object's local file, open, holding the bytes the catalog says it has. Its taker closes it. */
export interface OpenedFile {
  handle: fs.promises.FileHandle;
  size: number;
}

/**
 * The track's full download, an MP3, open. Opened before the download is charged, so that a charge
 * is made only for bytes at hand: a file gone meanwhile (a cache that evicted it, removed by hand)
 * is fetched again, one that holds other than its size is a damaged object.
 */
export function openFullDownload(storage: CatalogStorage, track: TrackFiles): Promise<OpenedFile> {
  return openStoredFile(storage, fullDownloadObject(track));
}

/** A stored object and the size the catalog records for it. */
export interface SizedObject {
  sha256: string;
  kind: StoredKind;
  extension?: string;
  size: number;
}

/** Which object is the track's full download: its MP3 made at ingest, or its MP3 original. */
export function fullDownloadObject(track: TrackFiles): SizedObject {
  return track.download_sha256 && track.download_bytes !== null
    ? { sha256: track.download_sha256, kind: 'download', size: Number(track.download_bytes) }
    : { sha256: track.audio_sha256, kind: 'audio', extension: track.audio_format, size: Number(track.audio_bytes) };
}

// Opening a local copy that vanished between being named and being opened: once more, fetched again.
const OPEN_ATTEMPTS = 2;

async function openStoredFile(storage: CatalogStorage, object: SizedObject): Promise<OpenedFile> {
  const { sha256, kind, extension, size } = object;
  for (let attempt = 1; ; attempt++) {
    const file = await storage.localPath(sha256, kind, extension);
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && attempt < OPEN_ATTEMPTS) continue;
      throw err;
    }
    if ((await handle.stat()).size === size) return { handle, size };
    await handle.close();
    throw new StoredObjectMissing(objectName(sha256, kind, extension), 'damaged');
  }
}
