"""The wheel built from pyproject.toml holds the service and nothing else:
no tests, no bench, no test support (testsupport/ is never installed)."""
import shutil
import subprocess
import sys
import zipfile

import support

# What a checkout holds besides its sources: the build works on a copy,
# so that it leaves nothing behind in the checkout.
_NOT_SOURCES = shutil.ignore_patterns('.git', '.venv', '__pycache__',
                                      '*.egg-info', 'build', '.hypothesis',
                                      '.pytest_cache', '.state')


def test_the_wheel_holds_only_the_service(tmp_path):
    source = tmp_path / 'source'
    shutil.copytree(support.REPO, source, ignore=_NOT_SOURCES)
    # Offline: the installed setuptools, no downloads.
    subprocess.run(
        [sys.executable, '-m', 'pip', 'wheel', '--no-deps', '--no-index',
         '--no-build-isolation', '--quiet', '--wheel-dir',
         str(tmp_path / 'dist'), str(source)],
        check=True, capture_output=True)
    wheel, = (tmp_path / 'dist').glob('*.whl')
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split('/')[0] for name in names
            if not name.split('/')[0].endswith('.dist-info')}
    assert tops == {'placement', 'migrations'}
    # The service whole: its console files and migrations come along.
    assert 'placement/wsgi.py' in names
    assert 'placement/console/static/index.html' in names
    assert any(name.startswith('migrations/versions/') for name in names)
    test_code = [name for name in names
                 if any(part in ('tests', 'testing', 'testsupport', 'bench',
                                 'support')
                        for part in name.split('/'))]
    assert test_code == []
