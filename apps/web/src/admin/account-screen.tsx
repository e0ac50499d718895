/**
 * Admin › Account: the account's name, country and time zone; its behaviours (each the spec
 * once gave one account by id, now a setting with a plain label); single sign-on; the
 * toll-fraud guard (countries agents may call and the four rate limits); how long an unused
 * session lasts; the CRM ids new users get. One Save (`PATCH /api/v1/admin/account`).
 */
import type { AdminAccount, AdminAccountUpdateBody, AccountSettings } from '@leadline/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../errors';
import { ErrorBanner } from '../ui/error-banner';
import { AdminForm, CheckboxField, SelectField, TextField } from './admin-form';
import { useAdmin } from './admin-context';
import { adminKey, refreshAfterWrite } from './admin-queries';

/** The account behaviours that are on or off, with what each does. */
export const BEHAVIOUR_LABELS = {
  hide_lead_email: "Hide the lead's e-mail address on the lead card",
  history_shows_lead_name: "Call History shows the lead's first and last name",
  lead_card_shows_phone: "The lead card shows the lead's phone number",
  inbound_banner_shows_number: "An incoming call's banner shows the number called",
  no_token_refetch: 'Do not fetch a new softphone token after token errors',
} as const satisfies Partial<Record<keyof AccountSettings, string>>;
type Behaviour = keyof typeof BEHAVIOUR_LABELS;

/** See the module comment. */
export function AccountScreen() {
  const { admin } = useAdmin();
  const account = useQuery({ queryKey: adminKey('account'), queryFn: () => admin.getAccount() });
  return (
    <section className="admin-screen" aria-labelledby="admin-account-title">
      <div className="admin-screen-head">
        <h2 id="admin-account-title" className="admin-screen-title">
          Account
        </h2>
      </div>
      <ErrorBanner message={account.error ? errorMessage(account.error) : null} />
      {account.data ? (
        <AccountForm key={JSON.stringify(account.data)} account={account.data} />
      ) : (
        !account.error && <p className="list-empty">Loading…</p>
      )}
    </section>
  );
}

/** A number as typed: empty is null, a number is sent as one, anything else as typed. */
function numberOrText(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : (trimmed as unknown as number);
}

/** Every time zone the browser knows, with `current` among them. */
function timeZones(current: string): string[] {
  const known =
    typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return known.includes(current) ? known : [current, ...known];
}

function AccountForm({ account }: { readonly account: AdminAccount }) {
  const { admin, say } = useAdmin();
  const client = useQueryClient();
  const [name, setName] = useState(account.name);
  const [country, setCountry] = useState(account.country_code);
  const [zone, setZone] = useState(account.time_zone);
  const [behaviours, setBehaviours] = useState<Record<Behaviour, boolean>>(() => ({
    hide_lead_email: account.settings.hide_lead_email === true,
    history_shows_lead_name: account.settings.history_shows_lead_name === true,
    lead_card_shows_phone: account.settings.lead_card_shows_phone === true,
    inbound_banner_shows_number: account.settings.inbound_banner_shows_number === true,
    no_token_refetch: account.settings.no_token_refetch === true,
  }));
  const [crmTemplate, setCrmTemplate] = useState(account.settings.external_crm_link_template ?? '');
  const [ssoEnabled, setSsoEnabled] = useState(account.single_sign_on.enabled);
  const [ssoDomain, setSsoDomain] = useState(account.single_sign_on.domain ?? '');
  const [ssoOnly, setSsoOnly] = useState(account.single_sign_on.sso_only);
  const policy = account.dial_policy;
  const [countries, setCountries] = useState(policy.call_countries.join(', '));
  const [limits, setLimits] = useState({
    calls_per_minute_per_agent: String(policy.calls_per_minute_per_agent),
    calls_per_minute_per_account: String(policy.calls_per_minute_per_account),
    sms_per_hour_per_agent: String(policy.sms_per_hour_per_agent),
    sms_per_hour_per_account: String(policy.sms_per_hour_per_account),
  });
  const [idle, setIdle] = useState(
    account.session_idle_minutes === null ? '' : String(account.session_idle_minutes),
  );
  const [serviceLevel, setServiceLevel] = useState(String(account.service_level_seconds));
  const [crm, setCrm] = useState({
    hubspot_id: account.crm_defaults.hubspot_id ?? '',
    salesforce_domain: account.crm_defaults.salesforce_domain ?? '',
    activecampaign_domain: account.crm_defaults.activecampaign_domain ?? '',
  });

  const save = useMutation({
    mutationFn: (body: AdminAccountUpdateBody) => admin.updateAccount(body),
    onSuccess: (saved) => {
      client.setQueryData(adminKey('account'), saved);
      refreshAfterWrite(client, 'account');
      say('Account settings saved. They apply at once.');
    },
  });

  const body = (): AdminAccountUpdateBody => {
    // The server merges `settings` into what it has: an empty template is sent to clear it
    // (the console adds no link for an empty one).
    const settings: AccountSettings = {
      ...behaviours,
      external_crm_link_template: crmTemplate.trim(),
    };
    const orNull = (text: string) => (text.trim() === '' ? null : text.trim());
    return {
      name,
      country_code: country,
      time_zone: zone,
      settings,
      single_sign_on: { enabled: ssoEnabled, domain: orNull(ssoDomain), sso_only: ssoOnly },
      dial_policy: {
        call_countries: countries
          .split(/[\s,]+/)
          .map((code) => code.trim())
          .filter(Boolean),
        calls_per_minute_per_agent: numberOrText(limits.calls_per_minute_per_agent) as number,
        calls_per_minute_per_account: numberOrText(limits.calls_per_minute_per_account) as number,
        sms_per_hour_per_agent: numberOrText(limits.sms_per_hour_per_agent) as number,
        sms_per_hour_per_account: numberOrText(limits.sms_per_hour_per_account) as number,
      },
      session_idle_minutes: numberOrText(idle),
      service_level_seconds: numberOrText(serviceLevel) as number,
      crm_defaults: {
        hubspot_id: orNull(crm.hubspot_id),
        salesforce_domain: orNull(crm.salesforce_domain),
        activecampaign_domain: orNull(crm.activecampaign_domain),
      },
    };
  };

  const limit = (key: keyof typeof limits, label: string) => (
    <TextField
      label={label}
      type="number"
      inputMode="numeric"
      min={1}
      value={limits[key]}
      onChange={(value) => setLimits((current) => ({ ...current, [key]: value }))}
    />
  );

  return (
    <AdminForm
      title="Account settings"
      submitLabel="Save"
      error={save.error}
      pending={save.isPending}
      onSubmit={() => save.mutate(body())}
      onCancel={() => undefined}
      cancellable={false}
    >
      <div className="admin-grid">
        <TextField label="Account name" value={name} onChange={setName} maxLength={100} />
        <TextField
          label="Country"
          value={country}
          onChange={setCountry}
          maxLength={2}
          hint="Two letters (ISO 3166-1), such as US."
        />
        <SelectField
          label="Time zone"
          value={zone}
          onChange={setZone}
          options={timeZones(account.time_zone).map((value) => ({ value, label: value }))}
        />
        <TextField
          label="Service level seconds"
          type="number"
          inputMode="numeric"
          min={1}
          max={3600}
          value={serviceLevel}
          onChange={setServiceLevel}
          hint="The floor's service level: calls answered within this many seconds."
        />
      </div>

      <fieldset className="admin-fieldset">
        <legend className="field-label">What agents see</legend>
        {(Object.keys(BEHAVIOUR_LABELS) as Behaviour[]).map((key) => (
          <CheckboxField
            key={key}
            label={BEHAVIOUR_LABELS[key]}
            checked={behaviours[key]}
            onChange={(checked) => setBehaviours((current) => ({ ...current, [key]: checked }))}
          />
        ))}
        <TextField
          label="Extra CRM link on the lead card"
          type="url"
          value={crmTemplate}
          onChange={setCrmTemplate}
          placeholder="https://crm.example.com/leads/{lead_id}?agent={agent_id}"
          hint="Optional; https only. {agent_id}, {lead_id}, {phone} and {call_id} are filled in."
        />
      </fieldset>

      <fieldset className="admin-fieldset">
        <legend className="field-label">Single sign-on</legend>
        <CheckboxField label="Single sign-on on" checked={ssoEnabled} onChange={setSsoEnabled} />
        <TextField
          label="Only e-mail addresses of this domain"
          value={ssoDomain}
          onChange={setSsoDomain}
          placeholder="example.com"
          hint="Optional: empty lets any address sign in."
        />
        <CheckboxField
          label="Single sign-on only (no password login)"
          checked={ssoOnly}
          onChange={setSsoOnly}
        />
      </fieldset>

      <fieldset className="admin-fieldset">
        <legend className="field-label">Toll-fraud guard</legend>
        <TextField
          label="Countries agents may call"
          value={countries}
          onChange={setCountries}
          hint="Two-letter codes, separated by commas, such as US, CA."
        />
        <div className="admin-grid">
          {limit('calls_per_minute_per_agent', 'Calls a minute per agent')}
          {limit('calls_per_minute_per_account', 'Calls a minute for the account')}
          {limit('sms_per_hour_per_agent', 'Texts an hour per agent')}
          {limit('sms_per_hour_per_account', 'Texts an hour for the account')}
        </div>
      </fieldset>

      <fieldset className="admin-fieldset">
        <legend className="field-label">Sessions and CRM</legend>
        <div className="admin-grid">
          <TextField
            label="Session idle minutes"
            type="number"
            inputMode="numeric"
            min={5}
            value={idle}
            onChange={setIdle}
            hint="An unused session ends after this long. Empty: the server's default."
          />
          <TextField
            label="Default HubSpot id"
            value={crm.hubspot_id}
            onChange={(value) => setCrm((current) => ({ ...current, hubspot_id: value }))}
          />
          <TextField
            label="Default Salesforce domain"
            value={crm.salesforce_domain}
            onChange={(value) => setCrm((current) => ({ ...current, salesforce_domain: value }))}
          />
          <TextField
            label="Default ActiveCampaign domain"
            value={crm.activecampaign_domain}
            onChange={(value) =>
              setCrm((current) => ({ ...current, activecampaign_domain: value }))
            }
          />
        </div>
      </fieldset>
    </AdminForm>
  );
}
