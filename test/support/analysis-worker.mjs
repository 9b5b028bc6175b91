// Piscina entry for analysis-threads.ts: register tsx (worker threads do not inherit the main
// thread's TypeScript loader on Node 20), then load the tasks.
import { register } from 'tsx/esm/api';

register();
const tasks = await import('./analysis-task.ts');

export const analyseThroughMp3 = tasks.analyseThroughMp3;
export const analyseChartSongThroughMp3 = tasks.analyseChartSongThroughMp3;
export const renderDemoPlan = tasks.renderDemoPlan;
