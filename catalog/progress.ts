// A one-line progress bar on stderr (redrawn in a terminal, a line per 10% otherwise).
export function progressBar(label: string): (done: number, total: number) => void {
  const tty = process.stderr.isTTY;
  let lastTenth = -1;
  return (done, total) => {
    const fraction = total ? done / total : 1;
    const width = 30;
    const filled = Math.round(fraction * width);
    const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`;
    if (tty) process.stderr.write(`\r${line}${done === total ? '\n' : ''}`);
    else if (Math.floor(fraction * 10) !== lastTenth || done === total) {
      lastTenth = Math.floor(fraction * 10);
      process.stderr.write(`${line}\n`);
    }
  };
}
