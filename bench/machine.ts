// One line describing the machine a benchmark ran on, for the report, and how much of its CPU the
// hypervisor took away during a run (steal time): on a shared virtual machine that is the noise
// behind run-to-run differences.
import fs from 'node:fs';
import os from 'node:os';

export function machineLine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `machine: ${os.availableParallelism()} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`;
}

/** CPU time counters from /proc/stat (Linux), in clock ticks; undefined elsewhere. */
function cpuTicks(): { steal: number; total: number } | undefined {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { steal: fields[7] ?? 0, total: fields.reduce((a, b) => a + b, 0) };
  } catch {
    return undefined;
  }
}

/** Starts measuring; the returned function gives "steal N% of CPU time" since then (or ''). */
export function stealMeter(): () => string {
  const start = cpuTicks();
  return () => {
    const end = cpuTicks();
    if (!start || !end || end.total === start.total) return '';
    return `hypervisor steal ${((100 * (end.steal - start.steal)) / (end.total - start.total)).toFixed(0)}% of CPU time`;
  };
}
