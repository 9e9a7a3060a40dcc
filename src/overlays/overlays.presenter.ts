import { formatDateTime } from '../shared/format/dates';
import type { OverlayRecord } from './overlay.model';

/** A CTA overlay as the spec lists it (4.5). */
export function presentOverlay(overlay: OverlayRecord) {
  return {
    id: overlay.id,
    type: overlay.type,
    name: overlay.name,
    date: formatDateTime(overlay.createdAt),
  };
}
