// Piscina entry for demo rendering threads: register tsx (worker threads do not inherit the
// main thread's TypeScript loader on Node 20), then load the task.
import { register } from 'tsx/esm/api';

register();
const tasks = await import('./render-task.ts');

export const renderDemoTrack = tasks.renderDemoTrack;
