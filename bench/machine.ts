// One line describing the machine a benchmark ran on, for the report.
import os from 'node:os';

export function machineLine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `machine: ${os.availableParallelism()} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`;
}
