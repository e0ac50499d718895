import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { demoCallUser } from '../api/fake-api';
import type { ConsoleCall } from '../console/call-rules';
import { LeadCard } from './lead-card';

const consoleCall = (call: Parameters<typeof demoCallUser>[0]): ConsoleCall => {
  const { call: resource, type, autoaccept } = demoCallUser(call);
  return { callSid: 'CA1', callUserId: 5, call: resource, type, autoaccept };
};

describe('LeadCard', () => {
  it("shows the lead's label", () => {
    render(<LeadCard call={consoleCall({})} settings={{}} />);
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
    render(<LeadCard call={call} settings={{}} />);
    expect(screen.getByRole('heading', { level: 2 })).toHaveTextContent('+1 555 010 0777');
    expect(screen.getByRole('article', { name: 'Lead: +1 555 010 0777' })).toBeInTheDocument();
  });
});
