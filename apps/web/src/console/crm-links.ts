/**
 * The lead card's CRM links (spec section 2): a button per CRM the lead can be opened in, built
 * from the lead's `source_id` (its id in that CRM) and the user's integration (HubSpot portal
 * id, Salesforce or ActiveCampaign domain), shown only when both exist; a lead that says which
 * CRM it came from (`crm`) gets that one only. Plus the account's external CRM link (the 6671
 * behaviour): a URL template with `{agent_id}`, `{lead_id}`, `{phone}` and `{call_id}`.
 */
import type { Lead, User } from '@leadline/contracts';

/** A link of the lead card. */
export interface CrmLink {
  /** The button's text. */
  readonly label: string;
  readonly href: string;
}

/** A host name as an integration stores it (no scheme, path, port or credentials). */
const HOST_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i;

/** The domain as a bare host name, or null when it is not one. */
function hostOf(domain: string | null): string | null {
  if (!domain) return null;
  const bare = domain
    .trim()
    .replace(/^https?:\/\//i, '')
    .replace(/\/+$/, '');
  return HOST_NAME.test(bare) ? bare.toLowerCase() : null;
}

const CRMS: ReadonlyArray<{
  readonly crm: string;
  readonly label: string;
  readonly href: (user: User, sourceId: string) => string | null;
}> = [
  {
    crm: 'hubspot',
    label: 'HubSpot',
    href: (user, id) => {
      const portal = user.integrations.hubspot_id?.trim();
      return portal && /^\d+$/.test(portal)
        ? `https://app.hubspot.com/contacts/${portal}/contact/${encodeURIComponent(id)}`
        : null;
    },
  },
  {
    crm: 'salesforce',
    label: 'Salesforce',
    href: (user, id) => {
      const host = hostOf(user.integrations.salesforce_domain);
      return host ? `https://${host}/${encodeURIComponent(id)}` : null;
    },
  },
  {
    crm: 'activecampaign',
    label: 'ActiveCampaign',
    href: (user, id) => {
      const host = hostOf(user.integrations.activecampaign_domain);
      return host ? `https://${host}/app/contacts/${encodeURIComponent(id)}` : null;
    },
  },
];

/** The lead's CRM links for `user` on call `callId`, in the spec's order. */
export function crmLinks(lead: Lead | null, user: User, callId: number): CrmLink[] {
  const links: CrmLink[] = [];
  const sourceId = lead?.source_id?.trim();
  if (lead && sourceId) {
    const from = lead.crm?.trim().toLowerCase() || null;
    for (const crm of CRMS) {
      if (from !== null && from !== crm.crm) continue;
      const href = crm.href(user, sourceId);
      if (href) links.push({ label: crm.label, href });
    }
  }
  const template = user.settings.external_crm_link_template;
  if (template && lead) {
    const values: Record<string, string> = {
      agent_id: String(user.id),
      lead_id: String(lead.id),
      phone: lead.phone_number,
      call_id: String(callId),
    };
    const href = template.replace(/\{(agent_id|lead_id|phone|call_id)\}/g, (_, key: string) =>
      encodeURIComponent(values[key]!),
    );
    if (/^https:\/\//i.test(href)) links.push({ label: 'CRM', href });
  }
  return links;
}
