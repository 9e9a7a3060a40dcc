/**
 * What the server hands the dashboard's browser modules (web/app, whose types.d.ts imports these),
 * so the two sides cannot drift apart. Types only: nothing here runs.
 */

export type FieldKind =
  | 'text'
  | 'url'
  | 'password'
  | 'textarea'
  | 'number'
  | 'checkbox'
  | 'select'
  | 'multiselect'
  | 'datetime'
  | 'color'
  | 'rows'
  | 'rules';

export interface FieldOption {
  value: string;
  label: string;
}

/** Where a select's choices come from: one of the caller's own lists in the API. */
export interface OptionsSource {
  path: string;
  key: string;
  value: string;
  label: string;
}

/**
 * One cell of a row editor's rows: `suggest` is a text input offering its options as you type
 * (any value the API accepts may still be typed, e.g. a country's ISO code).
 */
export interface RowColumn {
  /** The key in each row's object; '' when each row is a single value (pixels: ids). */
  name: string;
  label: string;
  kind: 'text' | 'url' | 'select' | 'suggest';
  required: boolean;
  options?: FieldOption[];
  optionsFrom?: OptionsSource;
}

/**
 * One key of a redirect rule's `when`, as the rules editor (web/app/rules.js) offers it: `list`
 * is values separated by commas, `devices` a box per device, `query` `name=value&name=*`,
 * `datetime` a local date and time (sent with its zone). GemPixel's maps name one value a row:
 * `select` one of `options`, `suggest` a text offering `options` as you type.
 */
export interface RuleKeySpec {
  name: string;
  label: string;
  kind: 'list' | 'devices' | 'query' | 'datetime' | 'select' | 'suggest';
  help?: string;
  options?: FieldOption[];
}

/** One input of a dashboard form, as web/app/app.js renders it. */
export interface FormField {
  name: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  /** The API clears the value when it receives null (an emptied input sends null). */
  nullable: boolean;
  help?: string;
  options?: FieldOption[];
  optionsFrom?: OptionsSource;
  /** `rows`: the cells of each row, from the schema of the list's items. */
  columns?: RowColumn[];
  /** `rows`: what one row is called (`country rule`), for its buttons and labels. */
  rowLabel?: string;
  maxRows?: number;
  /** `rules`: the keys a rule's `when` may name, in the order the editor shows them. */
  ruleKeys?: RuleKeySpec[];
  /**
   * The field (`rules`) whose editor also edits this one, in a section of its own: GemPixel's
   * targeting maps are rules of one key, kept apart only because API clients read them apart.
   */
  within?: string;
}

/** One message of `POST /app/api/dashboard/check`: `path` `[0, 'link']` is the first row's link. */
export interface CellError {
  path: Array<string | number>;
  message: string;
}

/** A form and where it sends its request. */
export interface FormSpec {
  path: string;
  /** `METHOD /path`: what `POST /app/api/dashboard/check` validates a field's value against. */
  check: string;
  fields: FormField[];
}

export interface Column {
  name: string;
  label: string;
  /** `verification`: a branded domain's ownership state and the TXT record it needs (M6). */
  kind?: 'link' | 'code' | 'bool' | 'verification';
}

/** What the client needs to list, create, edit and delete one kind of record through the API. */
export interface ResourceView {
  key: string;
  title: string;
  singular: string;
  intro: string;
  list: { path: string; key: string };
  columns: Column[];
  create?: FormSpec;
  update?: FormSpec;
  remove?: { path: string };
  /** Each record's own list (a channel's items, an overlay's contact responses). */
  members?: { label: string; path: string; key: string; columns: Column[] };
  /** A POST on one record that answers a message (a domain's ownership check). */
  action?: { label: string; path: string };
}
