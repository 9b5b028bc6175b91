// The version of what a clip request makes, for clips kept beyond one process (shared between nodes
// in the bucket): bumped when the planner or the renderer makes other bytes or another plan for the
// same request, so that no node serves a clip an older release made.

export const CLIP_VERSION = 2;
