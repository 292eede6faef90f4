import { mount } from 'svelte';
import App from './App.svelte';
import { applyTheme, rememberedTheme } from './lib/theme';
import './styles/theme.css';
import './styles/global.css';
import './styles/reader.css';

// The theme chosen last time, before anything is drawn; the settings confirm it once read.
applyTheme(rememberedTheme());

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

export default mount(App, { target });
