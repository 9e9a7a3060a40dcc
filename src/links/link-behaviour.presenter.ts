import type { LinkRecord } from './link.model';
import { linkParameters } from './link-behaviour.service';

/** The behaviour fields of a link in list items and details, under GemPixel's names. */
export function presentLinkBehaviour(link: LinkRecord) {
  return {
    type: link.type ?? 'direct',
    splash: link.splashId ?? null,
    overlay: link.overlayId ?? null,
    pixels: link.pixelIds ?? [],
    geotarget: (link.geotarget ?? []).map((r) => ({ location: r.location, link: r.link })),
    devicetarget: (link.devicetarget ?? []).map((r) => ({ device: r.device, link: r.link })),
    languagetarget: (link.languagetarget ?? []).map((r) => ({
      language: r.language,
      link: r.link,
    })),
    parameters: linkParameters(link),
    metatitle: link.metatitle ?? '',
    metadescription: link.metadescription ?? '',
    metaimage: link.metaimage ?? '',
  };
}
