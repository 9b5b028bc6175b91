// Analyses kept in memory, bounded by bytes (not count): a long track's envelopes weigh more.
import { LRUCache } from 'lru-cache';
import type { Analysis } from './analysis/analyse.ts';
import { analysisBytes } from './analysis/serialise.ts';

export function createAnalysisCache(maxBytes = 64 * 1024 * 1024): LRUCache<string, Analysis> {
  return new LRUCache<string, Analysis>({ maxSize: maxBytes, sizeCalculation: (a) => analysisBytes(a) });
}
