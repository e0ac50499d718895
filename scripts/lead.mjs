// Posts a lead to the running server, as a lead source would:
//   npm run lead -- --phone +15550100042 [--fname Jordan] [--lname Miles] [--company X]
//                   [--email x@y.z] [--url http://localhost:3000] [--key demo-api-key]
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    phone: { type: 'string' },
    fname: { type: 'string', default: 'Jordan' },
    lname: { type: 'string', default: 'Miles' },
    email: { type: 'string' },
    company: { type: 'string' },
    category: { type: 'string' },
    url: {
      type: 'string',
      default: process.env.LEADLINE_URL || `http://localhost:${process.env.PORT || 3000}`,
    },
    key: { type: 'string', default: process.env.LEADLINE_API_KEY || 'demo-api-key' },
  },
});

if (!values.phone) {
  console.error('Give the lead a phone number: npm run lead -- --phone +15550100042');
  process.exit(2);
}

const body = {
  fname: values.fname,
  lname: values.lname,
  phone_number: values.phone,
  ...(values.email ? { email: values.email } : {}),
  ...(values.company ? { company: values.company } : {}),
  ...(values.category ? { category: values.category } : {}),
};

try {
  const res = await fetch(new URL('/api/v1/leads', values.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${values.key}` },
    body: JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) {
    console.error(`The server refused the lead (${res.status}): ${json.error ?? res.statusText}`);
    process.exit(1);
  }
  const agent = json.call.agent_id ? `ringing agent ${json.call.agent_id}` : 'no agent available';
  console.log(
    `Lead ${json.lead.id} (${json.lead.label}, ${json.lead.phone_number_formatted}): call ${json.call.id}, ${json.call.status}, ${agent}.`,
  );
} catch (error) {
  console.error(
    `Could not reach Leadline at ${values.url}: ${error.cause?.code ?? error.message}. Is it running (npm start)?`,
  );
  process.exit(1);
}
