import type Joi from 'joi';
import type { FieldKind, FormField, RowColumn } from './view-types';

/** How to present a field; for a row editor, `columns` adjusts the cells derived from the schema. */
export type FieldHint = Partial<Omit<FormField, 'name' | 'required' | 'nullable' | 'columns'>> & {
  columns?: Record<string, Partial<Omit<RowColumn, 'name'>>>;
};

interface Described {
  type?: string;
  flags?: { presence?: string; only?: boolean; label?: string };
  allow?: unknown[];
  rules?: Array<{ name: string; args?: Record<string, unknown> }>;
  items?: Described[];
  keys?: Record<string, Described>;
}

function kindOf(d: Described): FieldKind {
  if (d.flags?.only && d.allow?.length) return 'select';
  switch (d.type) {
    case 'boolean':
      return 'checkbox';
    case 'number':
      return 'number';
    case 'array':
      return 'rows';
    case 'object':
      throw new Error('an object field has no form control: give it a hint');
    default:
      return d.rules?.some((r) => r.name === 'uri') ? 'url' : 'text';
  }
}

function humanise(name: string): string {
  const spaced = name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

const stringsOf = (d: Described) =>
  d.flags?.only ? d.allow?.filter((v): v is string => typeof v === 'string') : undefined;

/** The cells of a list's rows: an object item's keys, or one cell when items are single values. */
function columnsOf(list: Described, hint: FieldHint): RowColumn[] {
  const item = list.items?.[0] ?? {};
  const entries: Array<[string, Described]> =
    item.type === 'object' ? Object.entries(item.keys ?? {}) : [['', item]];
  return entries.map(([name, d]) => {
    const own = hint.columns?.[name] ?? {};
    const allowed = stringsOf(d);
    const kind =
      own.kind ??
      (allowed?.length ? 'select' : d.rules?.some((r) => r.name === 'uri') ? 'url' : 'text');
    const options = own.options ?? allowed?.map((value) => ({ value, label: value }));
    return {
      name,
      label: own.label ?? (humanise(name) || hint.label || 'Value'),
      kind,
      required: name === '' || d.flags?.presence === 'required',
      ...(options ? { options } : {}),
      ...(own.optionsFrom ? { optionsFrom: own.optionsFrom } : {}),
    };
  });
}

function maxOf(d: Described): number | undefined {
  const max = d.rules?.find((r) => r.name === 'max')?.args?.limit;
  return typeof max === 'number' ? max : undefined;
}

/**
 * The inputs of a form, read from the joi schema the API validates that request with: a field the
 * API gains (another issue adding link behaviour, say) appears in the dashboard without a second
 * list to keep in step. A list becomes a row editor whose cells are its items' keys, so no field
 * ever asks a person for JSON. Hints only say how to present a field; fields the API forbids are
 * left out.
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
      const label = hint.label ?? humanise(name);
      const field: FormField = {
        name,
        label,
        kind,
        required: d.flags?.presence === 'required',
        nullable: d.allow?.includes(null) ?? false,
        ...(hint.help ? { help: hint.help } : {}),
        ...(hint.optionsFrom ? { optionsFrom: hint.optionsFrom } : {}),
        ...(hint.ruleKeys ? { ruleKeys: hint.ruleKeys } : {}),
        ...(hint.within ? { within: hint.within } : {}),
      };
      if (kind === 'rules') {
        field.rowLabel = hint.rowLabel ?? 'rule';
        const max = maxOf(d);
        if (max !== undefined) field.maxRows = max;
      }
      if (kind === 'rows') {
        field.columns = columnsOf(d, { ...hint, label });
        field.rowLabel = hint.rowLabel ?? 'row';
        const max = maxOf(d);
        if (max !== undefined) field.maxRows = max;
      }
      const options = hint.options ?? stringsOf(d)?.map((value) => ({ value, label: value }));
      if (options && (kind === 'select' || kind === 'multiselect')) field.options = options;
      return field;
    });
}
