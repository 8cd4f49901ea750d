"""Write assets/root/favicon.ico: the book's icon (assets/static/favicon.svg) as an ICO.

Every page of the book links ``_static/favicon.svg``, but the root ``index.html`` that Jupyter
Book writes is a bare redirect with no icon link, so a browser that opens it asks the server for
``/favicon.ico`` (a 404 in the console). ``html_extra_path`` copies this folder to the root of the
built book. Run ``python assets/sphinx/make_favicon.py`` after changing the SVG.
"""
from pathlib import Path

from PIL import Image, ImageDraw

SCALE = 8                                   # draw the 32x32 SVG geometry at 256x256
NODES = [((6, 24), "#1f2328"), ((16, 8), "#0969da"), ((26, 24), "#bf3989")]


def draw() -> Image.Image:
    img = Image.new("RGBA", (32 * SCALE, 32 * SCALE), (0, 0, 0, 0))
    pen = ImageDraw.Draw(img)
    points = [(x * SCALE, y * SCALE) for (x, y), _ in NODES]
    pen.line(points, fill="#0969da", width=3 * SCALE, joint="curve")
    for (x, y), colour in NODES:
        r = 5 * SCALE
        pen.ellipse((x * SCALE - r, y * SCALE - r, x * SCALE + r, y * SCALE + r), fill=colour)
    return img


if __name__ == "__main__":
    draw().save(Path(__file__).parent.parent / "root" / "favicon.ico", sizes=[(16, 16), (32, 32), (48, 48)])
