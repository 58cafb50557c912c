<?xml version="1.0" encoding="UTF-8"?>
<!--
  Shows a sitemap index or a sitemap file as an HTML table when a browser
  opens it (github.com/freshmap/sitemap, Config.Stylesheet). Crawlers do not
  read it. XSLT 1.0, which browsers implement; no external resources.
-->
<xsl:stylesheet version="1.0"
	xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
	xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9"
	xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
	xmlns:xhtml="http://www.w3.org/1999/xhtml"
	exclude-result-prefixes="s image xhtml">

<xsl:output method="html" encoding="UTF-8" indent="no" doctype-system="about:legacy-compat"/>

<xsl:template match="/">
	<html lang="en">
	<head>
		<meta charset="utf-8"/>
		<meta name="viewport" content="width=device-width, initial-scale=1"/>
		<meta name="robots" content="noindex"/>
		<title>
			<xsl:choose>
				<xsl:when test="s:sitemapindex">Sitemap index</xsl:when>
				<xsl:otherwise>Sitemap</xsl:otherwise>
			</xsl:choose>
		</title>
		<style>
			body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #1f2328; margin: 2em auto; max-width: 72em; padding: 0 1em; }
			h1 { font-size: 1.5em; margin: 0 0 .25em; }
			p { margin: .25em 0 1em; color: #57606a; }
			table { border-collapse: collapse; width: 100%; }
			th, td { text-align: left; padding: .35em .75em; border-bottom: 1px solid #d0d7de; vertical-align: top; }
			th { background: #f6f8fa; position: sticky; top: 0; font-weight: 600; }
			tbody tr:nth-child(even) { background: #fafbfc; }
			tbody tr:hover { background: #eef4ff; }
			td.loc { word-break: break-all; }
			td.n, td.images, td.alternates, th.num { text-align: right; font-variant-numeric: tabular-nums; }
			td.n { color: #8c959f; }
			td.lastmod { white-space: nowrap; font-variant-numeric: tabular-nums; }
			a { color: #0969da; text-decoration: none; }
			a:hover { text-decoration: underline; }
		</style>
	</head>
	<body>
		<xsl:apply-templates select="s:sitemapindex | s:urlset"/>
	</body>
	</html>
</xsl:template>

<!-- An index: one row per sitemap file. -->
<xsl:template match="s:sitemapindex">
	<h1>Sitemap index</h1>
	<p>
		<strong class="count"><xsl:value-of select="count(s:sitemap)"/></strong> sitemap files.
		Each link opens the file's XML form, shown like this page.
	</p>
	<table id="sitemaps">
		<thead><tr><th class="num">#</th><th>Sitemap</th><th>Last modified</th></tr></thead>
		<tbody>
			<xsl:for-each select="s:sitemap">
				<xsl:variable name="loc" select="normalize-space(s:loc)"/>
				<tr class="sitemap">
					<td class="n"><xsl:value-of select="position()"/></td>
					<td class="loc">
						<a>
							<xsl:attribute name="href">
								<xsl:choose>
									<!-- A .xml.gz would download: link its .xml. -->
									<xsl:when test="substring($loc, string-length($loc) - 6) = '.xml.gz'">
										<xsl:value-of select="substring($loc, 1, string-length($loc) - 3)"/>
									</xsl:when>
									<xsl:otherwise><xsl:value-of select="$loc"/></xsl:otherwise>
								</xsl:choose>
							</xsl:attribute>
							<xsl:value-of select="$loc"/>
						</a>
					</td>
					<td class="lastmod"><xsl:value-of select="s:lastmod"/></td>
				</tr>
			</xsl:for-each>
		</tbody>
	</table>
</xsl:template>

<!-- A sitemap file: one row per URL, with its images and alternates. -->
<xsl:template match="s:urlset">
	<h1>Sitemap</h1>
	<p>
		<strong class="count"><xsl:value-of select="count(s:url)"/></strong> URLs.
		<a href="sitemap_index.xml">Sitemap index</a>
	</p>
	<table id="urls">
		<thead><tr><th class="num">#</th><th>URL</th><th>Last modified</th><th class="num">Images</th><th class="num">Alternates</th></tr></thead>
		<tbody>
			<xsl:for-each select="s:url">
				<xsl:variable name="loc" select="normalize-space(s:loc)"/>
				<tr class="url">
					<td class="n"><xsl:value-of select="position()"/></td>
					<td class="loc"><a href="{$loc}"><xsl:value-of select="$loc"/></a></td>
					<td class="lastmod"><xsl:value-of select="s:lastmod"/></td>
					<td class="images"><xsl:value-of select="count(image:image)"/></td>
					<td class="alternates"><xsl:value-of select="count(xhtml:link)"/></td>
				</tr>
			</xsl:for-each>
		</tbody>
	</table>
</xsl:template>

</xsl:stylesheet>
