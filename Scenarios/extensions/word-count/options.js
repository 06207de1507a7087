// The options page shows the command's shortcut, and says each press it hears.
chrome.commands.getAll().then((commands) => {
    document.getElementById('shortcut').textContent = commands.map((command) => `${command.name} ${command.shortcut}`).join(', ');
});
chrome.commands.onCommand.addListener((name, tab) => console.log(`${name} pressed over tab ${tab?.id}`));
