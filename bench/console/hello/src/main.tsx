/**
 * The app-load bench's reference (bench/console/app-load.ts builds it with the console's Vite
 * and React plugin): a React hello world, a heading and a button, mounted as the console mounts
 * itself (`createRoot(…).render(<StrictMode>…)` on `#app`).
 */
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';

function Hello() {
  const [clicks, setClicks] = useState(0);
  return (
    <main>
      <h1>Hello, world</h1>
      <button type="button" onClick={() => setClicks((n) => n + 1)}>
        Clicked {clicks} times
      </button>
    </main>
  );
}

const root = document.getElementById('app');
if (!root) throw new Error('The page has no #app element.');
createRoot(root).render(
  <StrictMode>
    <Hello />
  </StrictMode>,
);
