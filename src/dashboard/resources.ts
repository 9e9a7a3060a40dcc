import type Joi from 'joi';
import { campaignCreateSchema, campaignUpdateSchema } from '../campaigns/campaigns.schemas';
import { channelCreateSchema, channelUpdateSchema } from '../channels/channels.schemas';
import { domainCreateSchema, domainUpdateSchema } from '../domains/domains.schemas';
import { overlayCreateSchema, overlayUpdateSchema } from '../overlays/overlays.schemas';
import { pixelCreateSchema, pixelUpdateSchema } from '../pixels/pixels.schemas';
import { splashCreateSchema, splashUpdateSchema } from '../splash/splash.schemas';
import { formFields, type FieldHint } from './form-fields';
import type { Column, ResourceView } from './view-types';

interface ResourceDefinition {
  key: string;
  title: string;
  singular: string;
  intro: string;
  list: { path: string; key: string };
  columns: Column[];
  /** API paths with `:id` for the record; each is offered only when the API registers it. */
  create: { path: string; schema: Joi.ObjectSchema };
  update?: { path: string; schema: Joi.ObjectSchema };
  remove: string;
  hints?: Record<string, FieldHint>;
  members?: ResourceView['members'];
  action?: ResourceView['action'];
}

const definitions: ResourceDefinition[] = [
  {
    key: 'campaigns',
    title: 'Campaigns',
    singular: 'campaign',
    intro:
      'A campaign groups links; with a slug it also gets a rotator that sends each visitor to one of its links, and a public list page.',
    list: { path: '/campaigns', key: 'campaigns' },
    columns: [
      { name: 'name', label: 'Name' },
      { name: 'public', label: 'Public', kind: 'bool' },
      { name: 'rotator', label: 'Rotator', kind: 'link' },
      { name: 'list', label: 'List page', kind: 'link' },
    ],
    create: { path: '/campaign/add', schema: campaignCreateSchema },
    update: { path: '/campaign/:id/update', schema: campaignUpdateSchema },
    remove: '/campaign/:id/delete',
    hints: { slug: { help: 'Rotator address: 3-64 letters, digits, hyphens or underscores.' } },
  },
  {
    key: 'channels',
    title: 'Channels',
    singular: 'channel',
    intro: 'Channels are folders for your links, QR codes and other records.',
    list: { path: '/channels', key: 'channels' },
    columns: [
      { name: 'name', label: 'Name' },
      { name: 'description', label: 'Description' },
      { name: 'color', label: 'Colour', kind: 'code' },
      { name: 'starred', label: 'Starred', kind: 'bool' },
    ],
    create: { path: '/channel/add', schema: channelCreateSchema },
    update: { path: '/channel/:id/update', schema: channelUpdateSchema },
    remove: '/channel/:id/delete',
    hints: { color: { kind: 'color', label: 'Colour' }, description: { kind: 'textarea' } },
    members: {
      label: 'Items',
      path: '/channel/:id',
      key: 'items',
      columns: [
        { name: 'type', label: 'Type' },
        { name: 'title', label: 'Title' },
        { name: 'link', label: 'Address', kind: 'link' },
      ],
    },
  },
  {
    key: 'domains',
    title: 'Branded domains',
    singular: 'domain',
    intro:
      'Serve your short links on your own domain: point it here (the DNS record shown below), add it, then prove it is yours with the TXT record its Ownership column names and press Verify.',
    list: { path: '/domains', key: 'domains' },
    columns: [
      { name: 'domain', label: 'Domain', kind: 'code' },
      { name: 'verification', label: 'Ownership', kind: 'verification' },
      { name: 'redirectroot', label: 'Root redirects to', kind: 'link' },
      { name: 'redirect404', label: 'Unknown alias redirects to', kind: 'link' },
    ],
    create: { path: '/domain/add', schema: domainCreateSchema },
    update: { path: '/domain/:id/update', schema: domainUpdateSchema },
    remove: '/domain/:id/delete',
    action: { label: 'Verify', path: '/domain/:id/verify' },
    hints: {
      domain: { help: 'The address visitors will see, e.g. https://go.example.com' },
      redirectroot: { label: 'Redirect the root to' },
      redirect404: { label: 'Redirect unknown aliases to' },
    },
  },
  {
    key: 'pixels',
    title: 'Tracking pixels',
    singular: 'pixel',
    intro: 'Pixels fire on the pages your links show visitors (splash, overlay and frame pages).',
    list: { path: '/pixels', key: 'pixels' },
    columns: [
      { name: 'name', label: 'Name' },
      { name: 'type', label: 'Network' },
      { name: 'tag', label: 'Tag', kind: 'code' },
    ],
    create: { path: '/pixel/add', schema: pixelCreateSchema },
    update: { path: '/pixel/:id/update', schema: pixelUpdateSchema },
    remove: '/pixel/:id/delete',
    hints: { tag: { label: 'Tag or ID' }, type: { label: 'Network' } },
  },
  {
    key: 'splash',
    title: 'Splash pages',
    singular: 'splash page',
    intro: 'A splash page shows your message for a few seconds before the visitor moves on.',
    list: { path: '/splash', key: 'splash' },
    columns: [
      { name: 'name', label: 'Name' },
      { name: 'date', label: 'Created' },
    ],
    create: { path: '/splash/add', schema: splashCreateSchema },
    update: { path: '/splash/:id/update', schema: splashUpdateSchema },
    remove: '/splash/:id/delete',
  },
  {
    key: 'overlays',
    title: 'CTA overlays',
    singular: 'overlay',
    intro: 'A call-to-action overlay sits on top of the page a link leads to.',
    list: { path: '/overlay', key: 'cta' },
    columns: [
      { name: 'name', label: 'Name' },
      { name: 'type', label: 'Type' },
      { name: 'date', label: 'Created' },
    ],
    create: { path: '/overlay/add', schema: overlayCreateSchema },
    update: { path: '/overlay/:id/update', schema: overlayUpdateSchema },
    remove: '/overlay/:id/delete',
    members: {
      label: 'Responses',
      path: '/overlay/:id/responses',
      key: 'responses',
      columns: [
        { name: 'name', label: 'Name' },
        { name: 'email', label: 'Email' },
        { name: 'message', label: 'Message' },
        { name: 'date', label: 'Received' },
      ],
    },
  },
];

/** The schema of every resource form by `METHOD /path`, for the dashboard's field check. */
export function resourceFormSchemas(): Map<string, Joi.ObjectSchema> {
  const schemas = new Map<string, Joi.ObjectSchema>();
  for (const d of definitions) {
    schemas.set(`POST ${d.create.path}`, d.create.schema);
    if (d.update) schemas.set(`PUT ${d.update.path}`, d.update.schema);
  }
  return schemas;
}

/** Each resource as the client sees it, with only the actions the API (`routes`) really has. */
export function resourceViews(routes: ReadonlySet<string>): Map<string, ResourceView> {
  const has = (method: string, path: string) => routes.has(`${method} ${path}`);
  const views = new Map<string, ResourceView>();
  for (const d of definitions) {
    if (!has('GET', d.list.path)) continue;
    const view: ResourceView = {
      key: d.key,
      title: d.title,
      singular: d.singular,
      intro: d.intro,
      list: d.list,
      columns: d.columns,
    };
    if (has('POST', d.create.path)) {
      view.create = {
        path: d.create.path,
        check: `POST ${d.create.path}`,
        fields: formFields(d.create.schema, d.hints),
      };
    }
    if (d.update && has('PUT', d.update.path)) {
      view.update = {
        path: d.update.path,
        check: `PUT ${d.update.path}`,
        fields: formFields(d.update.schema, d.hints),
      };
    }
    if (has('DELETE', d.remove)) view.remove = { path: d.remove };
    if (d.members && has('GET', d.members.path)) view.members = d.members;
    if (d.action && has('POST', d.action.path)) view.action = d.action;
    views.set(d.key, view);
  }
  return views;
}
