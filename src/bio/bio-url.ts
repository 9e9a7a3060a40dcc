/** The public address of a bio page. */
export function bioPageUrl(publicUrl: string, alias: string): string {
  return `${publicUrl}/b/${alias}`;
}
