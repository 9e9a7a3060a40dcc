/**
 * The dashboard's link search matches an anchored prefix of normalised keys stored on the link
 * (`searchKeys`, index {userId, searchKeys}): the alias, the URL without its scheme, its host
 * without `www.`, each word of the URL's path and of the title, and the whole title. A case- and
 * accent-insensitive prefix then reads only the matching index keys, where an unanchored
 * case-insensitive regex read every link of the user per keystroke. Chosen over a text index:
 * a text index matches whole stemmed words, so typing the start of an alias finds nothing.
 */
const MAX_KEYS = 48;
const MAX_KEY_LENGTH = 128;

/** Lower case, accents dropped, trimmed: how keys are stored and queries are read. */
export function normaliseSearch(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .trim();
}

function words(text: string): string[] {
  return text.split(/[^\p{L}\p{N}_-]+/u).filter((w) => w.length > 0);
}

export function searchKeysOf(link: {
  alias: string;
  url: string;
  title?: string | null;
}): string[] {
  const url = normaliseSearch(link.url).replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  const host = url.split(/[/?#]/)[0] ?? '';
  const title = normaliseSearch(link.title ?? '');
  const keys = [
    normaliseSearch(link.alias),
    url,
    host.replace(/^www\./, ''),
    ...words(url.slice(host.length)),
    title,
    ...words(title),
  ];
  const unique = [...new Set(keys.map((k) => k.slice(0, MAX_KEY_LENGTH)).filter(Boolean))];
  return unique.slice(0, MAX_KEYS);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The filter of a search: keys starting with the normalised text (an index range on MongoDB). */
export function searchFilter(q: string): Record<string, unknown> {
  return { searchKeys: { $regex: `^${escapeRegex(normaliseSearch(q))}` } };
}
