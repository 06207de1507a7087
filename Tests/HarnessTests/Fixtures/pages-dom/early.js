// Runs before DOMContentLoaded: it sees the document loading, and hears the event.
document.documentElement.dataset.ready = document.readyState;
document.addEventListener("DOMContentLoaded", () => {
  document.documentElement.dataset.loaded = "yes";
});
