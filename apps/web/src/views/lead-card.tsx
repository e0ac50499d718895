import type { AccountSettings } from '@leadline/contracts';
import type { ConsoleCall } from '../console/call-rules';
import { Avatar } from './avatar';

/** Props of {@link LeadCard}. */
export interface LeadCardProps {
  readonly call: ConsoleCall;
  readonly settings: AccountSettings;
}

/**
 * The lead of the call: avatar (initials fallback), label, company, email (unless the account
 * hides it), category, and the formatted phone when the account shows it. A call without a lead
 * shows its phone number, formatted.
 */
export function LeadCard({ call, settings }: LeadCardProps) {
  const { lead } = call.call;
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
      </div>
    </article>
  );
}
