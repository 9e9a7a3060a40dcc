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
  | 'json';

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
}

/** A form and where it sends its request. */
export interface FormSpec {
  path: string;
  fields: FormField[];
}

export interface Column {
  name: string;
  label: string;
  kind?: 'link' | 'code' | 'bool';
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
}
