// git beads serve: keeps the live parts of a page current. The server sends a
// `change` event when refs/beads/main moves; the page fetches itself again and
// swaps in the elements marked data-live (forms outside them keep what is typed).
"use strict";
(function () {
  const dot = document.getElementById("live");
  async function refresh() {
    const res = await fetch(location.href);
    if (!res.ok) return;
    const doc = new DOMParser().parseFromString(await res.text(), "text/html");
    for (const fresh of doc.querySelectorAll("[data-live][id]")) {
      const old = document.getElementById(fresh.id);
      if (old) old.replaceWith(document.adoptNode(fresh));
    }
  }
  function connect() {
    const events = new EventSource("/events");
    events.addEventListener("open", () => { if (dot) dot.className = "on"; });
    events.addEventListener("change", refresh);
    events.addEventListener("error", () => { if (dot) dot.className = "off"; });
  }
  connect();
})();
