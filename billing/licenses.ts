// The license a paid download grants (spec 1, rule 2): written by the statement that charges it.
export interface License {
  trackId: string;
  durationSeconds: number | null;
  hitPointSeconds: number | null;
  clipStartSeconds: number | null;
}
