/** A CLI command: parses its own flags and returns the record to print as one JSON line. */
export interface CliCommand {
  name: string;
  usage: string;
  run(argv: string[]): Promise<Record<string, unknown>>;
}
