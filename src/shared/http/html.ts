import { escapeHtml } from './pages';

/** Markup that is already safe: produced by `markup` itself, never from a user's string. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = SafeHtml | string | number | null | undefined | false | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof SafeHtml) return part.value;
  if (Array.isArray(part)) return (part as readonly Part[]).map(render).join('');
  return escapeHtml(String(part as string | number));
}

/**
 * The one way visitor pages are written: every interpolated value is HTML-escaped (in text and
 * in quoted attributes alike) unless it is itself the result of `markup`, so a user's string can
 * never become markup.
 */
export function markup(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/**
 * Data for a page's script, as the body of a `<script type="application/json">` block: JSON with
 * every `<` escaped, so no value can close the block.
 */
export function jsonData(value: unknown): SafeHtml {
  return new SafeHtml(
    JSON.stringify(value)
      .replace(/</g, '\\u003c')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029'),
  );
}
