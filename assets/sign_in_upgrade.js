// Sign-ins used to live in localStorage ("hitl_session"); now only an HttpOnly cookie holds them and
// the upgrade ended the old ones. A browser that still has the old key drops it (so no page script
// can read it again) and goes to the sign-in page once, which says why, then back to where it was.
(function () {
  try {
    if (window.localStorage.getItem("hitl_session") === null) return;
    window.localStorage.removeItem("hitl_session");
    var back = window.location.pathname + window.location.search;
    var target = "/login?notice=upgraded";
    if (!window.location.pathname.startsWith("/login")) target += "&next=" + encodeURIComponent(back);
    window.location.replace(target);
  } catch (e) { /* no localStorage (privacy mode): nothing was kept there either */ }
})();
