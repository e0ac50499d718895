// The server's layers, bottom first (docs/architecture.md, "Layers"). Folders are concerns
// (calls, routing, auth…); a module's layer is given here, mostly by its name's ending
// (`-repo`, `-routes`, `-command`), so a new file finds its place by its name.
'use strict';
const { layerConfig } = require('../../scripts/layers.cjs');

module.exports = layerConfig({
  root: __dirname,
  layers: [
    {
      name: 'kernel',
      comment: 'building blocks that know no product: helpers, coded errors, buses, locks, TLS',
      paths: [
        '^src/lib/',
        '^src/http/(errors|client-address|validate)\\.ts$',
        '^src/events/(event-bus|instance-bus)\\.ts$',
        '^src/cluster/(call-locks|media-lease)\\.ts$',
        '^src/relay/relay-signature\\.ts$',
        '^src/tls/',
        '^src/auth/(hashing-queue|password)\\.ts$',
      ],
    },
    {
      name: 'domain',
      comment:
        'the product’s rules and ports, no I/O: call status, dial rules, identities, permissions, the telephony port',
      paths: [
        '^src/calls/(call-status|dial-destination|call-participants)\\.ts$',
        '^src/history/history-status\\.ts$',
        '^src/profiles/availability\\.ts$',
        '^src/auth/(access-token|permissions|cookie-policy)\\.ts$',
        '^src/telephony/',
        '^src/admin/(number-inventory|catalog-admin-lists|admin-users-unique)\\.ts$',
        '^src/realtime/(channels|pusher-auth|realtime-target)\\.ts$',
        '^src/relay/media-target\\.ts$',
        '^src/sounds/sounds\\.ts$',
        '^src/db/demo-logins\\.ts$',
        '^src/http/rate-limit-settings\\.ts$',
        '^src/cluster/instance-urls\\.ts$',
      ],
    },
    {
      name: 'db',
      comment: 'the schema, the database and the repositories: storage, no decisions',
      paths: [
        '^src/db/(schema|database|prepared|id-blocks|planner-statistics|routing-changes|demo-removal)\\.ts$',
        '^src/db/migrations/',
        '^src/db/schema/',
        '-repo\\.ts$',
        '^src/accounts/account-policy\\.ts$',
        '^src/admin/audit\\.ts$',
        '^src/http/(webhook-receipts|rate-limit-hits)\\.ts$',
        '^src/floor/(call-figures|floor-counts)\\.ts$',
      ],
    },
    {
      name: 'config',
      comment: 'the one typed configuration, read from the environment',
      paths: ['^src/config\\.ts$'],
    },
    {
      name: 'services',
      comment: 'use cases: intake, routing, the call lifecycle, administration, the floor, sign-in',
      paths: [
        '^src/calls/(?!.*-routes\\.ts$)(?!.*-repo\\.ts$)(?!(call-status|dial-destination|call-participants)\\.ts$)',
        '^src/routing/(?!.*-repo\\.ts$)',
        '^src/leads/(?!.*-routes\\.ts$)(?!.*-repo\\.ts$)',
        '^src/users/(?!.*-routes\\.ts$)(?!.*-repo\\.ts$)',
        '^src/profiles/settings-cache\\.ts$',
        '^src/admin/(?!.*-routes\\.ts$)(?!.*-command\\.ts$)(?!(number-inventory|catalog-admin-lists|admin-users-unique|audit|admin-guard)\\.ts$)',
        '^src/auth/(sessions|single-sign-on|sso-identity|sso-only|login-throttle|socket-access|twilio-access-tokens|api-key-cache|demo-password)\\.ts$',
        '^src/network-test/network-tests\\.ts$',
        '^src/reports/(calls-csv|report-summary)\\.ts$',
      ],
    },
    {
      name: 'providers',
      comment:
        'what carries the decisions out: the embedded realtime, Twilio, SMS, the instance bus, the media leader',
      paths: [
        '^src/twilio/(?!(twilio-webhooks|twilio-provider)\\.ts$)',
        '^src/realtime/embedded/(?!events-api\\.ts$)',
        '^src/realtime/(realtime-service|realtime-publisher)\\.ts$',
        '^src/sms/',
        '^src/events/open-instance-bus\\.ts$',
        '^src/cluster/leader-directory\\.ts$',
      ],
    },
    {
      name: 'adapter-kit',
      comment:
        'what every adapter uses: authentication, validation, API docs, rate limits, the relay',
      paths: [
        '^src/http/(api-docs|route-services|error-handler|anonymous-rate-limit|request-target|security-headers|instance-http|idempotency)\\.ts$',
        '^src/auth/auth-plugin\\.ts$',
        '^src/admin/admin-guard\\.ts$',
        '^src/relay/(relay-reception|relayed-routes|signal-relay)\\.ts$',
      ],
    },
    {
      name: 'adapters',
      comment: 'the ways in: HTTP routes, webhooks, sockets, CLI commands, the demo seed',
      paths: [
        '(?<!relayed)-routes\\.ts$',
        '-webhooks\\.ts$',
        '-command\\.ts$',
        '^src/realtime/embedded/events-api\\.ts$',
        '^src/db/seed\\.ts$',
      ],
    },
    {
      name: 'composition',
      comment: 'what builds and starts the product: app, leadline, main, the cluster start',
      paths: [
        '^src/(app|leadline|main|production-safety)\\.ts$',
        '^src/cluster/start-instance\\.ts$',
        '^src/twilio/twilio-provider\\.ts$',
        '^src/relay/start-relay\\.ts$',
      ],
    },
  ],
});
