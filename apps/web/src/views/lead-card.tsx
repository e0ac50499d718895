import type { User } from '@leadline/contracts';
import type { ConsoleCall } from '../console/call-rules';
import { crmLinks } from '../console/crm-links';
import { Avatar } from '../ui/avatar';

/** Props of {@link LeadCard}. */
export interface LeadCardProps {
  readonly call: ConsoleCall;
  /** The signed-in user: the account's settings and the user's CRM integrations. */
  readonly user: User;
}

/**
 * The lead of the call: avatar (initials fallback), label, company, email (unless the account
 * hides it), category, the formatted phone when the account shows it, and links to the lead in
 * the user's CRMs (crm-links.ts), each opening a new tab. A call without a lead shows its phone
 * number, formatted.
 */
export function LeadCard({ call, user }: LeadCardProps) {
  const { lead } = call.call;
  const { settings } = user;
  const links = crmLinks(lead, user, call.call.id);
  const name =
    lead?.label || call.call.phone_number_formatted || call.call.phone_number || 'Unknown caller';
  return (
    <article className="lead-card" aria-label={`Lead: ${name}`}>
      <Avatar name={name} src={lead?.profile_picture ?? null} size={56} />
      <div className="lead-details">
        <h2 className="lead-name">{name}</h2>
        {lead?.company && <p className="lead-company">{lead.company}</p>}
        {lead?.email && !settings.hide_lead_email && (
          <p className="lead-line">
            <a href={`mailto:${lead.email}`}>{lead.email}</a>
          </p>
        )}
        {lead && settings.lead_card_shows_phone && (
          <p className="lead-line">{lead.phone_number_formatted}</p>
        )}
        {lead?.category && <span className="pill">{lead.category}</span>}
        {links.length > 0 && (
          <p className="lead-links">
            {links.map((link) => (
              <a
                key={link.label}
                className="btn btn-secondary btn-compact"
                href={link.href}
                target="_blank"
                rel="noopener noreferrer"
                aria-label={`Open ${name} in ${link.label} (new tab)`}
              >
                {link.label}
              </a>
            ))}
          </p>
        )}
      </div>
    </article>
  );
}
