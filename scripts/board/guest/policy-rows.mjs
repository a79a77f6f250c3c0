// chrome://policy's rows as a person reads them, for the two read-backs of the kiosk's managed
// policy: in the guest (chrome-policy.mjs, over a headless Chromium's DevTools port) and on this
// machine (test/e2e/kiosk-chromium-policy.test.ts, through Playwright). It travels into the guest
// beside chrome-policy.mjs (scripts/board/parts/kiosk-lockdown.mjs writes both).

/**
 * An expression evaluated in the page: its elements' shadow trees walked for each leaf element's
 * class and text, in order (those with text), then one object per policy: a span with the name
 * followed by value, source, scope, level and messages (the status: "OK", or its errors and warnings).
 */
export const POLICY_ROWS = `(() => {
  const leaves = [];
  const walk = (n) => {
    if (n.shadowRoot) walk(n.shadowRoot);
    for (const c of n.children ?? []) walk(c);
    const text = n.nodeType === 1 && n.children.length === 0 ? n.textContent.trim() : '';
    if (text !== '') leaves.push([n.tagName === 'SPAN' && !n.className ? 'name' : String(n.className), text]);
  };
  walk(document.documentElement);
  const rows = [];
  for (let i = 0; i + 5 < leaves.length; i++) {
    const [k, v] = leaves[i];
    if (k !== 'name' || leaves[i + 1][0] !== 'value' || leaves[i + 2][0] !== 'source') continue;
    rows.push({ name: v, value: leaves[i + 1][1], source: leaves[i + 2][1], scope: leaves[i + 3][1], level: leaves[i + 4][1], status: leaves[i + 5][1] });
  }
  return rows;
})()`;
