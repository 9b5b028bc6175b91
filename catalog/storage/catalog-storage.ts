// Where the catalog's audio and previews live: files under DATA_DIR (one node), or objects in an
// S3-compatible bucket (any number of nodes, each with a bounded local disk cache). Objects are
// content-addressed (named by their SHA-256) and never change once stored, so any copy is as good
// as any other and a cache never has to be told that an object changed.

/**
 * What a stored object is: `audio` a track's original as delivered, `master` a clip master made
 * from it (catalog/track-files.ts), `download` a full-download MP3 made from a WAV or FLAC
 * original, `preview` a track's preview.
 */
export type StoredKind = 'audio' | 'master' | 'download' | 'preview';

/** Objects are MP3s but originals of other formats, whose names carry their format's extension (`wav`, `flac`). */
export const MP3_EXTENSION = 'mp3';

export interface CatalogStorage {
  /** What is stored where, for logs and the start-up line. */
  readonly description: string;
  /** Stores the bytes once under their SHA-256 and returns it; storing them again changes nothing. */
  put(bytes: Uint8Array, kind: StoredKind, extension?: string): Promise<string>;
  /** Whether an object with this SHA-256 is stored. */
  has(sha256: string, kind: StoredKind, extension?: string): Promise<boolean>;
  /**
   * A local file holding the object's bytes, for the engine's threads and for full downloads: the
   * stored file itself, or this node's cached copy, fetched on first use.
   */
  localPath(sha256: string, kind: StoredKind, extension?: string): Promise<string>;
  /** Removes an object no catalog row refers to (ingest stored it and then rejected the file). */
  remove(sha256: string, kind: StoredKind, extension?: string): Promise<void>;
  /** Objects shared by every node under names of their own (rendered clips); absent for files in DATA_DIR. */
  readonly shared: SharedObjects | undefined;
  /** Releases connections and timers. */
  close(): Promise<void>;
}

export interface SharedObjects {
  /** The object's bytes; undefined when there is none. */
  get(name: string): Promise<Uint8Array | undefined>;
  put(name: string, bytes: Uint8Array): Promise<void>;
}

/** What is wrong with an object the catalog refers to (StoredObjectMissing). */
export type ObjectProblem = 'missing' | 'damaged';

/**
 * An object the catalog refers to cannot be had from the store: it is not there (lost, or never
 * finished uploading), or what is there is damaged (its bytes do not hash to its name). Either way
 * it is this service's fault, and asking again will not help.
 */
export class StoredObjectMissing extends Error {
  constructor(readonly key: string, readonly problem: ObjectProblem = 'missing') {
    super(problem === 'missing' ? `the stored object "${key}" is missing` : `the stored object "${key}" is damaged: its bytes do not match their SHA-256`);
    this.name = 'StoredObjectMissing';
  }
}

/** The store could not be reached or did not answer in time: the request may be retried. */
export class StorageUnavailable extends Error {
  constructor(readonly key: string, cause: unknown) {
    super(`the object store is unavailable (reading or writing "${key}": ${(cause as Error)?.message ?? String(cause)})`, { cause });
    this.name = 'StorageUnavailable';
  }
}

/** The relative name of an object of `kind`: two levels of fan-out, as the files in DATA_DIR have always been laid out. */
export function objectName(sha256: string, kind: StoredKind, extension = MP3_EXTENSION): string {
  return `${kind}/${sha256.slice(0, 2)}/${sha256}.${extension}`;
}
