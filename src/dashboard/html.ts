import { escapeHtml } from '../shared/http/pages';

/** Markup that is already safe: produced by `html` or deliberately trusted. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/**
 * The dashboard's one template helper: every interpolated value is escaped unless it is itself
 * the output of `html`, so a page can only be built by composing escaped parts.
 */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** JSON for a `<script type="application/json">` block: `<` can never close the element. */
export function jsonScript(id: string, data: unknown): SafeHtml {
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  return new SafeHtml(`<script type="application/json" id="${escapeHtml(id)}">${json}</script>`);
}
