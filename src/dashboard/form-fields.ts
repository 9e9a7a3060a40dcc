import type Joi from 'joi';
import type { FieldKind, FormField } from './view-types';

export type FieldHint = Partial<Omit<FormField, 'name' | 'required' | 'nullable'>>;

interface Described {
  type?: string;
  flags?: { presence?: string; only?: boolean; label?: string };
  allow?: unknown[];
  rules?: Array<{ name: string; args?: Record<string, unknown> }>;
}

function kindOf(d: Described): FieldKind {
  if (d.flags?.only && d.allow?.length) return 'select';
  switch (d.type) {
    case 'boolean':
      return 'checkbox';
    case 'number':
      return 'number';
    case 'array':
    case 'object':
      return 'json';
    default:
      return d.rules?.some((r) => r.name === 'uri') ? 'url' : 'text';
  }
}

function humanise(name: string): string {
  const spaced = name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/**
 * The inputs of a form, read from the joi schema the API validates that request with: a field the
 * API gains (another issue adding link behaviour, say) appears in the dashboard without a second
 * list to keep in step. Hints only say how to present a field; fields the API forbids are left out.
 */
export function formFields(
  schema: Joi.ObjectSchema,
  hints: Record<string, FieldHint> = {},
): FormField[] {
  const keys = (schema.describe() as { keys?: Record<string, Described> }).keys ?? {};
  return Object.entries(keys)
    .filter(([, d]) => d.flags?.presence !== 'forbidden')
    .map(([name, d]) => {
      const hint = hints[name] ?? {};
      const kind = hint.kind ?? kindOf(d);
      const field: FormField = {
        name,
        label: hint.label ?? humanise(name),
        kind,
        required: d.flags?.presence === 'required',
        nullable: d.allow?.includes(null) ?? false,
        ...(hint.help ? { help: hint.help } : {}),
        ...(hint.optionsFrom ? { optionsFrom: hint.optionsFrom } : {}),
      };
      const options =
        hint.options ??
        (d.flags?.only
          ? d.allow?.filter((v): v is string => typeof v === 'string')
          : undefined
        )?.map((value) => ({ value, label: value }));
      if (options && (kind === 'select' || kind === 'multiselect')) field.options = options;
      return field;
    });
}
