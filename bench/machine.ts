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

/** CPU seconds (user + system) used so far by the given processes; 0 for one that is gone. */
function processSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // gone, or not Linux
    }
  }
  return ticks / 100; // USER_HZ
}

/** The processes whose command name is `comm` (PostgreSQL's postmaster and backends: "postgres"). */
function pidsNamed(comm: string): number[] {
  try {
    return fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim() === comm;
      } catch {
        return false;
      }
    }).map(Number);
  } catch {
    return [];
  }
}

/**
 * Starts measuring where the CPU goes during one run: the server process, PostgreSQL, and this
 * process (the load generator), in cores; shows whether a run was bound by the machine. The
 * returned function gives the line (or '' where /proc is missing).
 */
export function cpuShareMeter(serverPid: number): () => string {
  const postgresAtStart = new Map(pidsNamed('postgres').map((pid) => [pid, processSeconds([pid])]));
  const startedAt = performance.now();
  const start = { server: processSeconds([serverPid]), client: process.cpuUsage(), ticks: cpuTicks() };
  return () => {
    const seconds = (performance.now() - startedAt) / 1000;
    const ticks = cpuTicks();
    if (!start.ticks || !ticks || seconds <= 0) return '';
    // Backends that began during the run count from zero; those that ended during it are missed (rare: pooled connections).
    let postgres = 0;
    for (const pid of pidsNamed('postgres')) postgres += processSeconds([pid]) - (postgresAtStart.get(pid) ?? 0);
    const client = process.cpuUsage(start.client);
    const cores = (s: number) => (s / seconds).toFixed(2);
    const steal = (100 * (ticks.steal - start.ticks.steal)) / (ticks.total - start.ticks.total);
    return `CPU in cores: server ${cores(processSeconds([serverPid]) - start.server)}, PostgreSQL ${cores(postgres)}, load generator ${cores((client.user + client.system) / 1e6)}; steal ${steal.toFixed(0)}%`;
  };
}
