// Reads the event page's localStorage, which the extension's pages share with it.
document.addEventListener('DOMContentLoaded', () => {
  const host = localStorage.getItem('last');
  if (host !== null) {
    const pages = JSON.parse(localStorage.getItem('pages:' + host) ?? '[]');
    document.getElementById('total').textContent = `${pages.length} pages seen on ${host}`;
  }
});
