// Follows a running run: polls its progress JSON every second and updates the counts, the
// summary table and the latest items in place; when the run ends (or its process is gone:
// killed) it shows the final state once and stops. Everything from the server is set as text
// (textContent), never HTML.
"use strict";
(() => {
  const section = document.querySelector("[data-progress-url]");
  if (!section) return;
  const url = section.dataset.progressUrl;
  const list = section.querySelector("[data-latest]");
  const POLL_MS = 1000;

  function item(row) {
    const entry = document.createElement("li");
    const link = document.createElement("a");
    link.href = row.url; // built by the server: /runs/<id>/items/<id>, percent-encoded
    const code = document.createElement("code");
    code.textContent = row.id;
    link.append(code);
    const verdict = document.createElement("span");
    verdict.className = "verdict verdict-" + row.verdict;
    verdict.textContent = row.label;
    const answer = document.createElement("span");
    answer.className = "answer";
    answer.textContent = row.error || row.answer;
    const cost = document.createElement("span");
    cost.className = "cost";
    cost.textContent = `${row.tokens} tokens, ${row.latency} s`;
    entry.append(link, " ", verdict, " ", answer, " ", cost);
    return entry;
  }

  // Counts as the server writes them (12,345); anything else as it is.
  const shown = (value) => (Number.isInteger(value) ? value.toLocaleString("en-US") : String(value));

  const SUMMARY_CELLS = ["group", "count", "errors", "accuracy", "pass_rate", "excluded"];

  function summaryRow(row) {
    const line = document.createElement("tr");
    for (const name of SUMMARY_CELLS) {
      const cell = document.createElement("td");
      cell.textContent = shown(row[name]);
      line.append(cell);
    }
    return line;
  }

  function end() {
    section.dataset.live = "done";
    for (const line of document.querySelectorAll("[data-live-eta-line]")) line.remove();
    for (const badge of document.querySelectorAll("[data-live-badge]")) badge.remove();
    for (const note of document.querySelectorAll("[data-live-note]")) note.remove();
    for (const note of document.querySelectorAll("[data-ended-note]")) note.hidden = false;
  }

  function show(progress) {
    for (const [name, value] of Object.entries(progress.counts)) {
      for (const cell of document.querySelectorAll(`[data-count="${name}"]`)) {
        cell.textContent = shown(value);
      }
    }
    for (const status of document.querySelectorAll("[data-live-status]")) {
      status.textContent = progress.status;
      status.className = "status status-" + progress.status;
    }
    for (const ended of document.querySelectorAll("[data-live-ended]")) {
      ended.textContent = progress.ended_at;
    }
    for (const items of document.querySelectorAll("[data-live-items]")) {
      items.textContent = progress.items;
    }
    for (const eta of document.querySelectorAll("[data-live-eta]")) {
      eta.textContent = progress.eta;
    }
    const summary = document.querySelector("[data-summary]");
    if (summary) summary.replaceChildren(...progress.summary.map(summaryRow));
    if (list) list.replaceChildren(...progress.latest.map(item));
  }

  async function poll() {
    try {
      const response = await fetch(url, { cache: "no-store", headers: { Accept: "application/json" } });
      if (response.ok) {
        const progress = await response.json();
        show(progress);
        if (progress.status !== "running") {
          end();
          return;
        }
      }
    } catch (error) {
      // The server may be restarting: keep trying at the same pace.
    }
    setTimeout(poll, POLL_MS);
  }

  setTimeout(poll, POLL_MS);
})();
