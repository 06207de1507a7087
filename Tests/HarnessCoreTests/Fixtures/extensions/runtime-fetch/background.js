// The network answers only what the scenario says: a stubbed address gives its status and
// body, any other fails.
fetch('https://config.example.com/flags.json')
  .then((response) => response.json().then((flags) => console.log('flags', response.status, response.ok, flags.dark)));
fetch('https://other.example.com/').catch((error) => console.log('refused', error.message));
fetch('https://notes.example.com/readme.txt').then((response) => response.text()).then((text) => console.log('notes', JSON.stringify(text)));
