import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { demoCallUser, demoLead, demoUser } from '../test-support/fake-api';
import type { ConsoleCall } from '../console/call-rules';
import { LeadCard } from './lead-card';

const consoleCall = (call: Parameters<typeof demoCallUser>[0]): ConsoleCall => {
  const { call: resource, type, autoaccept } = demoCallUser(call);
  return { callSid: 'CA1', callUserId: 5, call: resource, type, autoaccept };
};

describe('LeadCard', () => {
  it("shows the lead's label", () => {
    render(<LeadCard call={consoleCall({})} user={demoUser()} />);
    expect(screen.getByRole('heading', { level: 2 })).toHaveTextContent('Maya Okafor');
  });

  it('shows a caller without a lead by the number, formatted', () => {
    const call = consoleCall({
      call: {
        direction: 'inbound',
        lead: null,
        lead_id: null,
        phone_number: '+15550100777',
        phone_number_formatted: '+1 555 010 0777',
      },
    });
    render(<LeadCard call={call} user={demoUser()} />);
    expect(screen.getByRole('heading', { level: 2 })).toHaveTextContent('+1 555 010 0777');
    expect(screen.getByRole('article', { name: 'Lead: +1 555 010 0777' })).toBeInTheDocument();
  });

  it('links the lead in the user’s CRM, opening a new tab, and the account’s external CRM link', () => {
    const call = consoleCall({
      call: { lead: demoLead({ source_id: '901', crm: 'hubspot' }) },
    });
    const user = demoUser({
      integrations: { hubspot_id: '4455', salesforce_domain: null, activecampaign_domain: null },
      settings: { external_crm_link_template: 'https://crm.example.com/leads/{lead_id}' },
    });
    render(<LeadCard call={call} user={user} />);
    const hubspot = screen.getByRole('link', { name: 'Open Maya Okafor in HubSpot (new tab)' });
    expect(hubspot).toHaveAttribute('href', 'https://app.hubspot.com/contacts/4455/contact/901');
    expect(hubspot).toHaveAttribute('target', '_blank');
    expect(hubspot).toHaveAttribute('rel', 'noopener noreferrer');
    expect(screen.getByRole('link', { name: 'Open Maya Okafor in CRM (new tab)' })).toHaveAttribute(
      'href',
      'https://crm.example.com/leads/301',
    );
  });

  it('shows no CRM links without the integrations', () => {
    render(
      <LeadCard
        call={consoleCall({ call: { lead: demoLead({ source_id: '901' }) } })}
        user={demoUser()}
      />,
    );
    expect(screen.queryAllByRole('link', { name: /^Open / })).toEqual([]);
  });
});
