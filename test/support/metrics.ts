/** The value of one sample of the Prometheus text, 0 when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelPart = line.slice(name.length).split(' ')[0] ?? '';
    if (wanted.every((w) => labelPart.includes(w))) return Number(line.split(' ').pop());
  }
  return 0;
}
