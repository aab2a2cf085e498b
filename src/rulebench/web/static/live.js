// Follows a running run: polls its progress JSON every second and updates the counts and the
// latest items in place. Everything from the server is set as text (textContent), never HTML.
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
    entry.append(link, " ", verdict, " ", answer);
    return entry;
  }

  function show(progress) {
    for (const [name, value] of Object.entries(progress.counts)) {
      for (const cell of document.querySelectorAll(`[data-count="${name}"]`)) {
        cell.textContent = String(value);
      }
    }
    for (const status of document.querySelectorAll("[data-live-status]")) {
      status.textContent = progress.status;
      status.className = "status status-" + progress.status;
    }
    if (list) list.replaceChildren(...progress.latest.map(item));
  }

  async function poll() {
    try {
      const response = await fetch(url, { cache: "no-store", headers: { Accept: "application/json" } });
      if (response.ok) {
        const progress = await response.json();
        show(progress);
        if (progress.status !== "running") {
          section.dataset.live = "done"; // finished: reload for the summary
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
