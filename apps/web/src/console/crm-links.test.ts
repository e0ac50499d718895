import { describe, expect, it } from 'vitest';
import { demoLead, demoUser } from '../test-support/fake-api';
import { crmLinks } from './crm-links';

const integrations = {
  hubspot_id: '4455',
  salesforce_domain: 'acme.my.salesforce.com',
  activecampaign_domain: 'acme.activehosted.com',
};

describe('the lead card’s CRM links', () => {
  it('one per CRM whose integration the user has, for a lead with a source id', () => {
    const user = demoUser({ integrations });
    const lead = demoLead({ source_id: '901', crm: null });
    expect(crmLinks(lead, user, 55)).toEqual([
      { label: 'HubSpot', href: 'https://app.hubspot.com/contacts/4455/contact/901' },
      { label: 'Salesforce', href: 'https://acme.my.salesforce.com/901' },
      { label: 'ActiveCampaign', href: 'https://acme.activehosted.com/app/contacts/901' },
    ]);
  });

  it('only the CRM the lead came from, when it says', () => {
    const user = demoUser({ integrations });
    expect(crmLinks(demoLead({ source_id: '901', crm: 'salesforce' }), user, 55)).toEqual([
      { label: 'Salesforce', href: 'https://acme.my.salesforce.com/901' },
    ]);
  });

  it.each([
    ['no source id', { source_id: null }, integrations],
    ['a blank source id', { source_id: '  ' }, integrations],
    [
      'no integrations',
      { source_id: '901' },
      { hubspot_id: null, salesforce_domain: null, activecampaign_domain: null },
    ],
  ])('none with %s', (_name, lead, userIntegrations) => {
    expect(
      crmLinks(demoLead({ crm: null, ...lead }), demoUser({ integrations: userIntegrations }), 55),
    ).toEqual([]);
  });

  it('refuses domains that are not bare host names, and encodes the source id', () => {
    const user = demoUser({
      integrations: {
        hubspot_id: '12ab',
        salesforce_domain: 'https://acme.my.salesforce.com/',
        activecampaign_domain: 'evil.com/x?y=',
      },
    });
    expect(crmLinks(demoLead({ source_id: 'a/b?c', crm: null }), user, 55)).toEqual([
      { label: 'Salesforce', href: 'https://acme.my.salesforce.com/a%2Fb%3Fc' },
    ]);
  });

  it('the account’s external CRM link fills agent, lead, phone and call, encoded', () => {
    const user = demoUser({
      id: 7,
      settings: {
        external_crm_link_template:
          'https://crm.example.com/agents/{agent_id}/leads/{lead_id}?phone={phone}&call={call_id}',
      },
    });
    const lead = demoLead({ id: 31, phone_number: '+15550100042', source_id: null });
    expect(crmLinks(lead, user, 55)).toEqual([
      {
        label: 'CRM',
        href: 'https://crm.example.com/agents/7/leads/31?phone=%2B15550100042&call=55',
      },
    ]);
    // Not for a call without a lead, nor a template that is not https.
    expect(crmLinks(null, user, 55)).toEqual([]);
    const plain = demoUser({
      settings: { external_crm_link_template: 'javascript:alert({lead_id})' },
    });
    expect(crmLinks(lead, plain, 55)).toEqual([]);
  });
});
