// The analysis's version, apart from analyse.ts so that reading a stored analysis (serialise.ts,
// the server's own thread) does not load the analysis and its FFT (frames.ts says why).

/** Bumped when a field is added, removed or computed differently: stored analyses of older versions are redone. */
export const ANALYSIS_VERSION = 23;
