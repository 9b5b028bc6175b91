// A one-line progress bar on stderr (redrawn in a terminal, a line per 10% otherwise), with the
// rate so far and the time left at that rate.

const BAR_WIDTH = 30;

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.ceil(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
}

/** The bar's text after `done` of `total` items in `elapsedSeconds`: no rate before the first item is done. */
export function progressLine(label: string, done: number, total: number, elapsedSeconds: number): string {
  const fraction = total ? done / total : 1;
  const filled = Math.round(fraction * BAR_WIDTH);
  const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${done}/${total}`;
  if (done === 0 || elapsedSeconds <= 0) return line;
  const perMinute = (done / elapsedSeconds) * 60;
  const left = done < total ? `, ${duration(((total - done) / done) * elapsedSeconds)} left` : `, done in ${duration(elapsedSeconds)}`;
  return `${line}, ${perMinute.toFixed(perMinute < 10 ? 1 : 0)}/min${left}`;
}

export function progressBar(label: string): (done: number, total: number) => void {
  const tty = process.stderr.isTTY;
  const started = performance.now();
  let lastTenth = -1;
  return (done, total) => {
    const line = progressLine(label, done, total, (performance.now() - started) / 1000);
    const tenth = Math.floor((total ? done / total : 1) * 10);
    if (tty) process.stderr.write(`\r${line}\x1b[K${done === total ? '\n' : ''}`);
    else if (tenth !== lastTenth || done === total) {
      lastTenth = tenth;
      process.stderr.write(`${line}\n`);
    }
  };
}
