/** The first characters of a key (`lqr_` and eight more), stored and shown to recognise it. */
export function keyPrefixOf(key: string): string {
  return key.slice(0, 12);
}
