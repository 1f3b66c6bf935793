/** Entry: read the route from the URL, load it, render (the console page at /console). */
import { render } from 'preact';
import { App } from './app.js';
import { ConsoleApp } from './console-view.js';
import { readUrl, openRecording, recId } from './model.js';
import { detectConsole } from './console-link.js';
import './style.css';

readUrl();
detectConsole();
if (location.pathname === '/console') {
  render(<ConsoleApp />, document.getElementById('app')!);
} else {
  void openRecording(recId.value);
  render(<App />, document.getElementById('app')!);
}
