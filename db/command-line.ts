// What every `npm run <tool>` command shares: exit codes and error printing.

/** Prints the problem and the usage; returns the exit code for a usage error. */
export function usageError(message: string, usage: string): number {
  console.error(`${message}\n${usage}`);
  return 2;
}

/** Runs a command's main with the process arguments and exits with its code (1 on an unexpected error). */
export function runCommand(main: (argv: string[]) => Promise<number>): void {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
