// One JSON line per edit of the edits benches, when EDITS_ROWS names a file: what was asked, where
// the peak plays and how the clip ends, so a miss or an ending off the beat can be looked at one
// by one (the benches' tallies only count them).
import fs from 'node:fs';
import type { ClipPlan } from '../engine/plan/plan.ts';
import { offBeatSeconds, planEndSeconds } from '../test/support/edit-ending.ts';

const ROWS_FILE = process.env.EDITS_ROWS;

type EditRow =
  | { name: string; duration: number; hit: number; refused: true }
  | { name: string; duration: number; hit: number; exact: boolean; onBeat: boolean; reachable: boolean; plan: ClipPlan; beats: ArrayLike<number> };

/** Appends the edit's row to EDITS_ROWS (nothing when it is unset). */
export function editRow(row: EditRow): void {
  if (!ROWS_FILE) return;
  const line = 'refused' in row ? row : describedRow(row);
  fs.appendFileSync(ROWS_FILE, JSON.stringify(line) + '\n');
}

/** A made edit's row, times to the millisecond. */
function describedRow(row: Exclude<EditRow, { refused: true }>) {
  const end = planEndSeconds(row.plan);
  return {
    name: row.name,
    duration: row.duration,
    hit: row.hit,
    peakInClip: row.plan.peakInClipSeconds,
    exact: row.exact,
    onBeat: row.onBeat,
    reachable: row.reachable,
    ending: row.plan.ending,
    landing: row.plan.hitPointLanding,
    endSeconds: Number(end.toFixed(3)),
    offBeatSeconds: Number(offBeatSeconds(end, row.beats).toFixed(3)),
    runs: row.plan.runs.map((run) => [Number(run.sourceStart.toFixed(3)), Number(run.length.toFixed(3))]),
  };
}
