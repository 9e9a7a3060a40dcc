const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD` in UTC. */
export function formatDate(date: Date): string {
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

/** The spec's date-time form, `YYYY-MM-DD HH:MM:SS`, always in UTC. */
export function formatDateTime(date: Date): string {
  return `${formatDate(date)} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

export function formatOptionalDateTime(date: Date | null | undefined): string | null {
  return date ? formatDateTime(date) : null;
}
