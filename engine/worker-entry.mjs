// Piscina's entry point for engine threads. Worker threads do not inherit the main thread's
// TypeScript loader on Node 20, so register tsx here, then load the tasks written in TypeScript.
import { register } from 'tsx/esm/api';

register();
const tasks = await import('./worker.ts');

export const analyse = tasks.analyse;
export const masters = tasks.masters;
export const clip = tasks.clip;
export const plan = tasks.plan;
export const warm = tasks.warm;
export const crash = tasks.crash;
