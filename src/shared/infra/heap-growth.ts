/**
 * How far V8 lets the old generation grow past what the last full GC left alive before it
 * collects again (here 1.5x). Allowed up to 4 GB, V8 picks up to 4x: under steady redirect load
 * about 2 KB per click outlives two scavenges and dies old, so the API's heap climbed from its
 * ~50 MB alive to ~208 MB before each mark-compact, and its RSS sawed between ~205 and ~340 MiB.
 * At 1.5x it stays within ~5 MiB, for a mark-compact every 2 s instead of every 10 s (GC time
 * unchanged). Not allowed in NODE_OPTIONS: `npm start` passes it to the processes it forks.
 */
export const HEAP_GROWTH_FLAG = '--heap-growing-percent=50';

const nameOf = (flag: string) => (flag.split('=')[0] as string).replaceAll('_', '-');

/** Node flags for a forked process: the launcher's own, plus the heap's growth unless given. */
export function forkExecArgv(execArgv: readonly string[]): string[] {
  const name = nameOf(HEAP_GROWTH_FLAG);
  return execArgv.some((arg) => nameOf(arg) === name)
    ? [...execArgv]
    : [...execArgv, HEAP_GROWTH_FLAG];
}
